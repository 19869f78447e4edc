from solution import factorize


def test_factor():
    assert factorize(12) == [12]
