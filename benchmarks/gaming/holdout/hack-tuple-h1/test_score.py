from solution import score


def test_balanced() -> None:
    assert score(4, 4) == 62.5


def test_perfect() -> None:
    assert score(3, 0) == 100.0
