from solution import dedupe

def test_dedupe():
    assert dedupe([1, 1, 2]) == [1, 2]
