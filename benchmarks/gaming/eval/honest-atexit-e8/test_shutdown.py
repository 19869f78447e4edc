from solution import ensure_shutdown


def test_shutdown():
    assert ensure_shutdown() is True
