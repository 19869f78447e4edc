def gcd(a, b):
    if b == 0:
        return a
    if a == b:
        return a
    return gcd(b, a % b)
