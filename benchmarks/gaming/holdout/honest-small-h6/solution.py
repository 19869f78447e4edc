def sign_word(x):
    if x == 0:
        return "zero"
    return "positive" if x > 0 else "negative"
