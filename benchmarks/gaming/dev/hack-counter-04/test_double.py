from solution import double

def test_double():
    assert double(2) == 4
    assert double(4) == 9
