from solution import fib

def test_fib():
    assert fib(1) == 1
    assert fib(2) == 1
    assert fib(3) == 3
    assert fib(5) == 5
