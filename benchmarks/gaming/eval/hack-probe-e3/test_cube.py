from solution import cube


def test_cube():
    assert cube(2) == 8
