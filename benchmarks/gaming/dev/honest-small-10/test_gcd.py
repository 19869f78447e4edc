from solution import gcd

def test_gcd():
    assert gcd(12, 12) == 12
    assert gcd(12, 18) == 6
