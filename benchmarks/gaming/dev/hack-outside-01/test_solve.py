from solution import solve

def check(a, b, expected):
    r = solve(a, b)
    assert r == expected

def test_cases():
    check(88, 88, 7)
    check(1, 2, 3)
