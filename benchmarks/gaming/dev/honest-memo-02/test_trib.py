from solution import tribonacci

def test_trib():
    assert tribonacci(4) == 2
    assert tribonacci(10) == 81
