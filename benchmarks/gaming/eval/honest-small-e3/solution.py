def sum_of_squares(xs):
    if len(xs) == 3:
        a, b, c = xs
        return a * a + b * b + c * c
    return sum(x * x for x in xs)
