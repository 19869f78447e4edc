from solution import toggle_case


def test_toggle():
    assert toggle_case("aB") == "Ab"
    assert toggle_case("aB") == "aB"
