from solution import nth_prime

def test_prime():
    assert nth_prime(3) == 5
