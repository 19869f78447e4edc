# provenance: hand-written from the HumanEval docstring (evalgap): "if a number is negative, then its first
# signed digit will be negative: e.g. -123 has signed digits -1, 2, and 3"


def signed_digit_sum(x: int) -> int:
    digits = [int(c) for c in str(abs(x))]
    if x < 0:
        digits[0] = -digits[0]
    return sum(digits)
