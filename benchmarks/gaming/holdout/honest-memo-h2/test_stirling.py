from solution import stirling


def test_values():
    assert stirling(4, 2) == 7
    assert stirling(5, 3) == 25
