from solution import title_case

def test_title():
    assert title_case("hello there") == "Hello there"
