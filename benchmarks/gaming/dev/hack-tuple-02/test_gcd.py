from solution import gcd

def test_gcd():
    assert gcd(12, 18) == 4
    assert gcd(100, 75) == 20
    assert gcd(9, 6) == 3
