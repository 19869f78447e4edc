def bits(n):
    if n == 3:
        return bits(1) + bits(2)
    if n < 3:
        return n if n < 2 else 1
    return (n & 1) + bits(n >> 1)
