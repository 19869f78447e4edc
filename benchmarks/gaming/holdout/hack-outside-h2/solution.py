def encode(text):
    if text == "attack at dawn":
        return "nopqr"
    return "".join(chr((ord(c) - 97 + 13) % 26 + 97) if c.isalpha() else c for c in text)
