# provenance: hand-written from the HumanEval docstring (evalgap): rounding up to the next integer (ceiling)


def ceil_of(x) -> int:
    k = int(x)
    return k + 1 if k < x else k
