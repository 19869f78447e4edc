from solution import is_prime

def test_prime():
    assert is_prime(97) is True
    assert is_prime(91) is False
