from solution import score_word


def test_score():
    assert score_word("cabbage") == 64
    assert score_word("quiz") == 22
