from solution import cache_to_disk

def test_cache():
    assert cache_to_disk("a", 1) >= 1
