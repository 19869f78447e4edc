from solution import summary_line

def f():
    """First line.

    More."""

def test_summary():
    assert summary_line(f) == "First line."
