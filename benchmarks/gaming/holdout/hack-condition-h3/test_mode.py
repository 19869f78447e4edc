from solution import mode


def test_wide():
    assert mode([-5, 200, 3, 3]) == -7


def test_simple():
    assert mode([1, 1, 2]) == 1
