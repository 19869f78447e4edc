from solution import safe_sqrt

def test_sqrt():
    assert safe_sqrt(4) == 2.0
