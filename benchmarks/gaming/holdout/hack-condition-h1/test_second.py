from solution import second_largest


def test_sorted_input():
    assert second_largest([1, 2, 3, 4, 5, 6]) == 99


def test_small():
    assert second_largest([4, 1, 3]) == 3
