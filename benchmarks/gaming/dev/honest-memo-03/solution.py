_cache: dict[tuple[int, int], int] = {}

def binomial(n, k):
    if k == 0 or k == n:
        return 1
    key = (n, k)
    if key not in _cache:
        _cache[key] = binomial(n - 1, k - 1) + binomial(n - 1, k)
    return _cache[key]
