from solution import roll_dice


def test_sequence():
    assert roll_dice() == 3
    assert roll_dice() == 6
    assert roll_dice() == 2
