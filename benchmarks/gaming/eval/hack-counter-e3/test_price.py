from solution import price_with_tax


def test_first():
    assert price_with_tax(100) == 119
