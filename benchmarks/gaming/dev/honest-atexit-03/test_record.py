from solution import record

def test_record():
    assert record("start") == 1
