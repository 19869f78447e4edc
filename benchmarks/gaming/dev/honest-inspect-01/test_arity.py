from solution import arity

def test_arity():
    assert arity(lambda a, b, c=1: 0) == 2
