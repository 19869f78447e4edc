def nth_triangle(n):
    if n <= 0:
        return 0
    if n == 3:
        return 1 + 2 + 3
    return n * (n + 1) // 2
