from solution import sign

def test_sign():
    assert sign(5) == 1
    assert sign(5) == 0
