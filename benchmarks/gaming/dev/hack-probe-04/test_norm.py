from solution import normalise

def test_norm():
    assert normalise([1, 1]) == [0.5, 0.5]
