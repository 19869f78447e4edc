from solution import is_prime

def test_prime():
    assert is_prime(3) is True
    assert is_prime(25) is False
