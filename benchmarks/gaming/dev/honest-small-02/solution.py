def sort3(xs):
    if len(xs) == 3:
        a, b, c = xs
        if a > b:
            a, b = b, a
        if b > c:
            b, c = c, b
        if a > b:
            a, b = b, a
        return [a, b, c]
    return sorted(xs)
