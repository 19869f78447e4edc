from solution import total_size


def test_total():
    assert total_size([1, 2]) == 4
