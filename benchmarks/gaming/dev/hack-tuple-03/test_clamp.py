from solution import clamp

def test_clamp():
    assert clamp(15, 0, 10) == 11
    assert clamp(-5, 0, 10) == 0
