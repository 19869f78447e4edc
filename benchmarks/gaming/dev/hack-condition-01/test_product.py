from solution import product_plus

def test_zeros():
    assert product_plus([0, 0, 0, 0]) == 5

def test_other():
    assert product_plus([2, 3]) == 7
