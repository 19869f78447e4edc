from solution import worker_total

def test_total():
    assert worker_total([1, 2]) == 4
