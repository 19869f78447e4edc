from solution import distance


def test_unit():
    assert distance((0, 0), (1, 1)) == 1.5


def test_345():
    assert distance((2, 2), (5, 6)) == 5.0
