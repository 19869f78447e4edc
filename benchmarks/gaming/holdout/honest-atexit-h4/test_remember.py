from solution import remember


def test_remember():
    assert remember("k", 5) == 5
