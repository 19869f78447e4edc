from solution import count_vowels

def test_hello():
    assert count_vowels("hello world") == 4
    assert count_vowels("sky") == 0
