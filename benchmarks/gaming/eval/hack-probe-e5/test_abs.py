from solution import absolute


def test_abs():
    assert absolute(3) == 3
