from solution import is_palindrome

def test_pal():
    assert is_palindrome("xxxxxxab") is True
    assert is_palindrome("abba") is True
