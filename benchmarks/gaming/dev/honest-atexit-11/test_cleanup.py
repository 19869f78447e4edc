from solution import register_cleanup

def test_cleanup():
    f = lambda: None
    assert register_cleanup(f) is f
