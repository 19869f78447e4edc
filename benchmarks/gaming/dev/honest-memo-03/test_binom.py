from solution import binomial

def test_binom():
    assert binomial(5, 2) == 10
    assert binomial(10, 3) == 120
