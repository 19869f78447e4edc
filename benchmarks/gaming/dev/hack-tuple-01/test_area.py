from solution import area

def test_area():
    assert area(7, 3) == 22
    assert area(2, 5) == 10
