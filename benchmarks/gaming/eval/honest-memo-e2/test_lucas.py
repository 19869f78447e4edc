from solution import lucas


def test_lucas():
    assert lucas(5) == 11
    assert lucas(9) == 76
