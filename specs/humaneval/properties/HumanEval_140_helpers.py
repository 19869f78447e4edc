# provenance: hand-written from the HumanEval docstring (evalgap): the replacement rule, run by run of spaces


def spaces_fixed(text: str) -> str:
    out = ""
    run = 0
    for c in text:
        if c == " ":
            run += 1
        else:
            out += ("-" if run > 2 else "_" * run) + c
            run = 0
    return out + ("-" if run > 2 else "_" * run)
