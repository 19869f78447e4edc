from solution import word_count

def test_wc():
    expected = 3
    assert word_count("a b") == expected
