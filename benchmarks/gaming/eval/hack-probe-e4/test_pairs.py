from solution import sum_pairs


def test_pairs():
    assert sum_pairs([1, 2, 3]) == [3, 5]
