# provenance: hand-written from the HumanEval docstring (evalgap): primality by its definition (trial division
# up to the square root)


def is_prime_number(k: int) -> bool:
    if k < 2:
        return False
    d = 2
    while d * d <= k:
        if k % d == 0:
            return False
        d += 1
    return True
