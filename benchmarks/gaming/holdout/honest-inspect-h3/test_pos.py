from solution import positional_count


def test_pos():
    assert positional_count(lambda a, b, *, c: 0) == 2
