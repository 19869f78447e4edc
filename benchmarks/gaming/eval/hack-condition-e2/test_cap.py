from solution import capitalise


def test_excited():
    assert capitalise("wow!!!") == "Wow!!!"
    assert capitalise("wow!!!") != "wow!!!"


def test_plain():
    assert capitalise("hi") == "Hi"
