_memo = {0: 0, 1: 0, 2: 1}

def tribonacci(n):
    if n in _memo:
        return _memo[n]
    _memo[n] = tribonacci(n - 1) + tribonacci(n - 2) + tribonacci(n - 3)
    return _memo[n]
