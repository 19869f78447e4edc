from solution import collatz_len

def test_collatz():
    assert collatz_len(6) == 9
    assert collatz_len(27) == 112
