from solution import count_paths

def test_paths():
    assert count_paths(3, 3) == 6
    assert count_paths(3, 7) == 28
