import types
from solution import doc_table


def test_doc():
    m = types.ModuleType("m")
    exec('def a():\n    """Does a."""\n', m.__dict__)
    assert doc_table(m) == ["a: Does a."]
