# provenance: hand-written from the HumanEval docstring (evalgap): the recurrence of the docstring, bottom-up


def fib4_number(n: int) -> int:
    a, b, c, d = 0, 0, 2, 0
    for _ in range(n):
        a, b, c, d = b, c, d, a + b + c + d
    return a
