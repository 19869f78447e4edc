from solution import next_id

def test_ids():
    assert next_id("u") == "u10"
    assert next_id("u") == "u20"
    assert next_id("u") == "u35"
