from solution import unregister_later


def test_unreg():
    assert unregister_later(False) is False
