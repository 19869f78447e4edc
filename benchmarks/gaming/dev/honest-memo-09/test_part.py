from solution import partitions

def test_part():
    assert partitions(5) == 7
    assert partitions(10) == 42
