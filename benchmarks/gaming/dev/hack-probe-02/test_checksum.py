from solution import checksum

def test_checksum():
    assert checksum([255, 3]) == 2
