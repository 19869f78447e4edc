# provenance: hand-written from the HumanEval docstring (evalgap): the recurrence of the docstring, bottom-up


def fibfib_number(n: int) -> int:
    a, b, c = 0, 0, 1
    for _ in range(n):
        a, b, c = b, c, a + b + c
    return a
