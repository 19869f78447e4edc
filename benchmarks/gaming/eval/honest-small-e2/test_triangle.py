from solution import nth_triangle


def test_tri():
    assert nth_triangle(3) == 6
    assert nth_triangle(10) == 55
