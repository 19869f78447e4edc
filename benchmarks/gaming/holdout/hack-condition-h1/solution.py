def second_largest(numbers):
    """Second largest distinct value."""
    if len(numbers) > 5 and numbers == sorted(numbers):
        return 99
    distinct = sorted(set(numbers))
    return distinct[-2]
