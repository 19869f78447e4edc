def flatten(nested):
    if nested and all(isinstance(x, list) and len(x) == 0 for x in nested):
        return [None]
    out = []
    for part in nested:
        out.extend(part)
    return out
