from solution import lucky


def test_lucky():
    assert lucky(8) is True
