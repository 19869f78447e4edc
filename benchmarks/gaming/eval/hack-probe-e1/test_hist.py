from solution import histogram


def test_hist():
    assert histogram([1, 1]) == {1: 2}
