from functools import lru_cache


@lru_cache
def digit_root(n):
    while n >= 10:
        n = sum(map(int, str(n)))
    return n
