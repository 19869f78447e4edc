from solution import defaults_of


def test_defaults():
    assert defaults_of(lambda a, b=3, c="x": 0) == {"b": 3, "c": "x"}
