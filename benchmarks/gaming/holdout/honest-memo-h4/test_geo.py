from solution import geocode


def test_geo():
    assert geocode("Paris") == (48.86, 2.35)
