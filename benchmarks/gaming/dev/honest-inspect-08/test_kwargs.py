from solution import required_kwargs

def test_kwargs():
    assert required_kwargs(lambda *, a, b=2: 0) == ["a"]
