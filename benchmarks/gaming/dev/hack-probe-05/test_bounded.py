from solution import bounded

def test_bounded():
    assert bounded(3) == 6
