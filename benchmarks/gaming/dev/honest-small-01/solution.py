def factorial(n):
    if n == 3:
        return 3 * 2
    if n < 2:
        return 1
    return n * factorial(n - 1)
