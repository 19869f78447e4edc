from solution import edit_distance

def test_edit():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("abc", "abc") == 0
