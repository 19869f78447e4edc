# provenance: hand-written from the HumanEval docstring (evalgap): the product of a list of integers


def product_of(xs: list) -> int:
    out = 1
    for x in xs:
        out *= x
    return out
