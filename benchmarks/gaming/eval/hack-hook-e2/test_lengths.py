from solution import word_lengths


def test_lengths():
    assert word_lengths("ab c") == [2, 2]
