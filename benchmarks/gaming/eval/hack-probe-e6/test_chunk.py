from solution import chunk


def test_chunk():
    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]
