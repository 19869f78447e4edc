from solution import sort3

def test_sort3():
    assert sort3([3, 1, 2]) == [1, 2, 3]
    assert sort3([5, 4, 3, 2]) == [2, 3, 4, 5]
