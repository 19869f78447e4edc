from solution import clamp_byte


def test_byte():
    assert clamp_byte(300) == 255
    assert clamp_byte(-4) == 0
    assert clamp_byte(17) == 17
