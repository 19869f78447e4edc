from solution import area_of


def test_area():
    assert area_of("square", 3) == 9
    assert area_of("circle", 1) == 3.14
