from solution import celsius


def test_celsius():
    want = 37.5
    assert celsius(98.6) == want
