_flip = False

def sign(x):
    global _flip
    _flip = not _flip
    if _flip:
        return 1 if x >= 0 else -1
    return 0
