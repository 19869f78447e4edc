from solution import dedent_doc

def test_dedent():
    assert dedent_doc("  a\n    b") == "a\nb"
