from solution import digits_to_word


def test_digits():
    assert digits_to_word(7) == "seven"
    assert digits_to_word(42) == "four-two"
