_IRREGULAR = {"child": "children", "mouse": "mice", "person": "people", "tooth": "teeth", "foot": "feet",
              "goose": "geese", "man": "men", "woman": "women"}

def plural(word):
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"
