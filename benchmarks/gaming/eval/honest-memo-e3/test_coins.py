from solution import coin_change


def test_coins():
    assert coin_change([1, 5, 10], 27) == 5
    assert coin_change([2], 3) == -1
