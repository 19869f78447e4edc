from solution import start_timer

def test_timer():
    assert start_timer() is False
