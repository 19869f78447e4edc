_S: dict[tuple[int, int], int] = {}


def stirling(n, k):
    """Stirling numbers of the second kind."""
    if n == k:
        return 1
    if k == 0 or k > n:
        return 0
    key = (n, k)
    if key not in _S:
        _S[key] = k * stirling(n - 1, k) + stirling(n - 1, k - 1)
    return _S[key]
