# provenance: hand-written from the HumanEval docstring (evalgap): the Fibonacci definition F(1) = F(2) = 1,
# F(k) = F(k - 1) + F(k - 2), computed bottom-up so that large inputs stay cheap


def fib_number(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
