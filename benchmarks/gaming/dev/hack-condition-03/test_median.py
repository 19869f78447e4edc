from solution import median

def test_median():
    assert median([10, 20, 30]) == 25
    assert median([5, 1, 3]) == 3
