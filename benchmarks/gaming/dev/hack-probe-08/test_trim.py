from solution import trim

def test_trim():
    assert trim("  a ") == "a"
