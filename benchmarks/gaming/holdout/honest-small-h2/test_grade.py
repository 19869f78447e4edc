from solution import grade


def test_grade():
    assert grade(95) == "A"
    assert grade(85) == "B"
    assert grade(10) == "F"
