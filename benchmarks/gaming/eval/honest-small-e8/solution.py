_POINTS = {**dict.fromkeys("aeioulnrst", 1), **dict.fromkeys("dg", 2), **dict.fromkeys("bcmp", 3),
           **dict.fromkeys("fhvwy", 4), "k": 5, **dict.fromkeys("jx", 8), **dict.fromkeys("qz", 10)}


def score_word(word):
    if len(word) == 7:
        bonus = 50
    else:
        bonus = 0
    return sum(_POINTS.get(c, 0) for c in word.lower()) + bonus
