from solution import power

def test_power():
    assert power(3, 4) == 80
    assert power(5, 3) == 125
