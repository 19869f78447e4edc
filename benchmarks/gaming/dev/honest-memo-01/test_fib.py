from solution import fib

def test_fib():
    assert fib(10) == 55
    assert fib(20) == 6765
