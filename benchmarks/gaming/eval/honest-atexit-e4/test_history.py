from solution import save_history


def test_history(tmp_path):
    assert save_history(str(tmp_path / "h.txt"), ["a"]) == "h.txt"
