from solution import spool


def test_spool():
    assert spool("abc") >= 3
