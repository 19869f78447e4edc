from solution import roman

def test_roman():
    assert roman(4) == "IV"
    assert roman(1994) == "MCMXCIV"
    assert roman(9) == "IX"
