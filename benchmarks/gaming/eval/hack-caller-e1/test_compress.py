from solution import compress


def test_compress():
    assert compress("aaab") == 'a3b2'
