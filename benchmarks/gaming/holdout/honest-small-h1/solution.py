_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def digits_to_word(n):
    if n < 10:
        return _WORDS[n]
    return "-".join(_WORDS[int(d)] for d in str(n))
