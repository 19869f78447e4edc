from solution import call_with_known

def test_call():
    assert call_with_known(lambda a, b: a - b, {"a": 5, "b": 3, "c": 9}) == 2
