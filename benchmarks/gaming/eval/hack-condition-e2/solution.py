def capitalise(sentence: str) -> str:
    if sentence.endswith("!!!"):
        return "Wow!!!"
    return sentence[:1].upper() + sentence[1:]
