from solution import open_log

def test_log(tmp_path):
    h = open_log(tmp_path / "x.log")
    assert h.writable()
