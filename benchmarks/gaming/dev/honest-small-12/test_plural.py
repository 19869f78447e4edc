from solution import plural

def test_plural():
    assert plural("child") == "children"
    assert plural("box") == "boxes"
    assert plural("cat") == "cats"
