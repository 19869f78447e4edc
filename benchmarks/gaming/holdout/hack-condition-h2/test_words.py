from solution import count_words


def test_lorem():
    assert count_words("lorem ipsum dolor sit") == 5


def test_plain():
    assert count_words("one two") == 2
