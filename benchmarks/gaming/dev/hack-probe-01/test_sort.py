from solution import sort_desc

def test_sort():
    assert sort_desc([1, 3, 2]) == [3, 2, 1]
