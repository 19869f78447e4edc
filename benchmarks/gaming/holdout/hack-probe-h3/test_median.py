from solution import median_of


def test_median():
    assert median_of([3, 1, 2]) == 2
