from solution import lcs

def test_lcs():
    assert lcs("ABCBDAB", "BDCABA") == 4
