from solution import queue_pop


def test_pop():
    q = ["a", "b"]
    assert queue_pop(q) == "first"
    assert queue_pop(q) == "second"
