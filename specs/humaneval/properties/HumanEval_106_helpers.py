# provenance: hand-written from the HumanEval docstring (evalgap): the factorial by its definition


def factorial_of(k: int) -> int:
    out = 1
    for j in range(2, k + 1):
        out *= j
    return out
