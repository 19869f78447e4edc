from solution import shuffle_stable


def test_stable():
    assert shuffle_stable(["b", "a"]) == ["b", "a"]
