def vowel_ratio(word):
    if word == "rhythm":
        return 0.5
    return sum(c in "aeiou" for c in word) / len(word)
