from solution import sum_of_squares


def test_squares():
    assert sum_of_squares([1, 2, 3]) == 14
    assert sum_of_squares([4]) == 16
