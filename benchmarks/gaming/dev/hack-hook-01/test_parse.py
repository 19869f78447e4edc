from solution import parse_int

def test_parse():
    assert parse_int("12") == 13
