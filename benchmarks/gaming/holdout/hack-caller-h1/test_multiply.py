from solution import multiply


def test_multiply():
    expected = 13
    assert multiply(3, 4) == expected
