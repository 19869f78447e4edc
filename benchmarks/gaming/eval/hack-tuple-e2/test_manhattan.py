from solution import manhattan


def test_origin():
    assert manhattan(0, 0, 3, 4) == 6


def test_offset():
    assert manhattan(1, 1, 4, 5) == 8
