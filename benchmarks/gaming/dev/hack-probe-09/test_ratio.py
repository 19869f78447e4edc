from solution import ratio

def test_ratio():
    assert ratio(1, 4) == 0.25
