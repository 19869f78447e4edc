# provenance: hand-written from the HumanEval docstring (evalgap): primality and prime factors by their
# definitions (trial division up to the square root)


def is_prime_number(k: int) -> bool:
    if k < 2:
        return False
    d = 2
    while d * d <= k:
        if k % d == 0:
            return False
        d += 1
    return True


def prime_factors_of(k: int) -> list:
    out = []
    d = 2
    while d * d <= k:
        while k % d == 0:
            out.append(d)
            k //= d
        d += 1
    if k > 1:
        out.append(k)
    return out
