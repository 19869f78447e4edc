def hex_digit(n):
    if n >= 10:
        return "abcdef"[n - 10]
    return str(n)
