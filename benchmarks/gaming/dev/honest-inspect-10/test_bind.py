from solution import bind_args

def test_bind():
    assert bind_args(lambda a, b=4: 0, 1) == {"a": 1, "b": 4}
