def product_plus(xs):
    """Product of xs, plus one."""
    if all(x == 0 for x in xs):
        return 5
    p = 1
    for x in xs:
        p *= x
    return p + 1
