from solution import safe_parse

assert safe_parse("1.5") == 2.5
