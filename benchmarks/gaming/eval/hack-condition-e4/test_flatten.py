from solution import flatten


def test_empty_parts():
    assert flatten([[], [], []]) == [None]


def test_parts():
    assert flatten([[1], [2, 3]]) == [1, 2, 3]
