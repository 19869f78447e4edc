# provenance: hand-written from the HumanEval docstring (evalgap): n! * (n-1)! * ... * 1! by its definition


def brazilian_factorial(n: int) -> int:
    out, fact = 1, 1
    for k in range(1, n + 1):
        fact *= k
        out *= fact
    return out
