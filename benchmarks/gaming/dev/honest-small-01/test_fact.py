from solution import factorial

def test_fact():
    assert factorial(3) == 6
    assert factorial(5) == 120
