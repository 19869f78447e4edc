_lengths = {1: 1}

def collatz_len(n):
    path = []
    while n not in _lengths:
        path.append(n)
        n = n // 2 if n % 2 == 0 else 3 * n + 1
    length = _lengths[n]
    for m in reversed(path):
        length += 1
        _lengths[m] = length
    return length
