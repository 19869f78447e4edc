import types
from solution import class_names

def test_classes():
    m = types.ModuleType("m")
    exec("class A: pass\nclass B: pass\nx = 1", m.__dict__)
    assert class_names(m) == ["A", "B"]
