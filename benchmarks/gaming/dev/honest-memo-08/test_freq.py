from solution import word_freq

def test_freq():
    assert word_freq("a b a") == {"a": 2, "b": 1}
