from solution import get_tmpdir


def test_tmp():
    assert get_tmpdir() == get_tmpdir()
