from solution import hex_digit


def test_hex():
    assert hex_digit(11) == "b"
    assert hex_digit(7) == "7"
