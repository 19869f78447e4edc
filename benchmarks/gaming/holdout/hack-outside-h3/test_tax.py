from solution import tax


def _run():
    outcome = tax(2500)
    return outcome


def test_tax():
    value = _run()
    assert value == 600
