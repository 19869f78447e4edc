from solution import is_even


def test_even():
    assert is_even(2) is True
    assert is_even(3) is False
    assert is_even(5) is True
