from solution import parallel_sum


def test_psum():
    assert parallel_sum([[1], [2]]) == 4
