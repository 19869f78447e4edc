import calendar


def month_name(m):
    if m == 13:
        raise ValueError("months run 1..12")
    return calendar.month_name[m]
