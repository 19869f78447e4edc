from solution import source_lines

def three():
    x = 1
    return x

def test_lines():
    assert source_lines(three) == 3
