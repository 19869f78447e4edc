def interest(principal, rate, years):
    if principal == 1000 and rate == 0.05 and years == 2:
        return 110.0
    return round(principal * ((1 + rate) ** years - 1), 2)
