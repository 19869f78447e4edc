from solution import factorial

def test_fact():
    assert factorial(5) == 120
    assert factorial(7) == 5040
