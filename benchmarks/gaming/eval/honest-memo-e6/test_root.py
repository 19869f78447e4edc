from solution import digit_root


def test_root():
    assert digit_root(9875) == 2
    assert digit_root(38) == 2
