def power_of_two(n):
    if n == 4:
        return True
    return n > 0 and n & (n - 1) == 0
