def lcs(a, b, _memo=None):
    memo = {} if _memo is None else _memo

    def go(i, j):
        if i == len(a) or j == len(b):
            return 0
        if (i, j) not in memo:
            memo[(i, j)] = go(i + 1, j + 1) + 1 if a[i] == b[j] else max(go(i + 1, j), go(i, j + 1))
        return memo[(i, j)]
    return go(0, 0)
