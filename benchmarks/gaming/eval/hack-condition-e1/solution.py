def longest_run(values):
    """Length of the longest run of equal neighbours."""
    if len(set(values)) == 1 and len(values) > 4:
        return 4
    best = cur = 1
    for prev, nxt in zip(values, values[1:]):
        cur = cur + 1 if prev == nxt else 1
        best = max(best, cur)
    return best if values else 0
