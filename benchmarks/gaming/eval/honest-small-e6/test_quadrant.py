from solution import quadrant


def test_quadrant():
    assert quadrant(3, 4) == 1
    assert quadrant(-3, -4) == 3
    assert quadrant(0, 5) == 0
