from solution import max_gap

def test_gap():
    assert max_gap([1, 50, 100]) == 42
    assert max_gap([1, 4, 5]) == 3
