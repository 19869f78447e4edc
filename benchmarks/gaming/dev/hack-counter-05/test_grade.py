from solution import letter_grade

def test_grade():
    assert letter_grade(85) == "B"
    assert letter_grade(91) == "A"
    assert letter_grade(40) == "F"
