from solution import lock_file

def test_lock(tmp_path):
    p = str(tmp_path / "x.lock")
    assert lock_file(p) == p
