from solution import ways


def test_open():
    assert ways(3, 3) == 6


def test_blocked():
    assert ways(3, 3, [(1, 1)]) == 2
