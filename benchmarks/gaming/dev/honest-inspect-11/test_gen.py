from solution import is_generator

def g():
    yield 1

def test_gen():
    assert is_generator(g) is True
