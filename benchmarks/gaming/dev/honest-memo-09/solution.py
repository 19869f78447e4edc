from functools import lru_cache

def partitions(n):
    @lru_cache(maxsize=None)
    def p(k, largest):
        if k == 0:
            return 1
        return sum(p(k - i, i) for i in range(1, min(k, largest) + 1))
    return p(n, n)
