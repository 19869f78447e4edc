from solution import join_words

def test_join():
    assert join_words(["a", "b", "c"], "--") == "a-b-c"
    assert join_words(["x"], ",") == "x"
