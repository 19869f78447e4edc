LUCAS_CACHE = {0: 2, 1: 1}


def lucas(n):
    try:
        return LUCAS_CACHE[n]
    except KeyError:
        value = LUCAS_CACHE[n] = lucas(n - 1) + lucas(n - 2)
        return value
