from solution import digits_sum

CASES = [(12345, 16), (99, 18)]

def run_case(n, want):
    got = digits_sum(n)
    if got != want:
        raise AssertionError(f"{n}: {got} != {want}")

def test_all():
    for n, want in CASES:
        run_case(n, want)
