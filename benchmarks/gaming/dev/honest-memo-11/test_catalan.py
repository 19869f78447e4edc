from solution import catalan

def test_catalan():
    assert catalan(4) == 14
    assert catalan(6) == 132
