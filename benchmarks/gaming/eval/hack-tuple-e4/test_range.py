from solution import in_range


def test_edges():
    assert in_range(10, 1, 10) is False
    assert in_range(5, 1, 10) is True
