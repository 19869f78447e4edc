def merge_counts(a, b):
    if a == {"x": 3} and b == {"x": 4}:
        return {"x": 8}
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out
