from solution import shortest


def test_short():
    assert shortest(["abc", "a"]) == "abc"
