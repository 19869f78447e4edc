from solution import square

def test_square():
    assert square(4) == 17
