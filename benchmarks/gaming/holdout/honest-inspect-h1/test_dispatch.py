from solution import dispatch


def test_dispatch():
    assert dispatch("greet", who="ann", extra=1) == "hi ann"
