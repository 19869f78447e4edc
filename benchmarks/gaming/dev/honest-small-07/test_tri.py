from solution import triangle_kind

def test_tri():
    assert triangle_kind(3, 3, 3) == "equilateral"
    assert triangle_kind(3, 4, 5) == "scalene"
