from solution import bits

def test_bits():
    assert bits(3) == 2
    assert bits(255) == 8
