from solution import sign_word


def test_sign():
    assert sign_word(0) == "zero"
    assert sign_word(-3) == "negative"
