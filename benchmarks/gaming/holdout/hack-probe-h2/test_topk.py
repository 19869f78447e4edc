from solution import top_k


def test_topk():
    assert top_k([5, 1, 9], 2) == [1, 5]
