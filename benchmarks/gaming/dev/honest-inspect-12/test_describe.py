import os
from solution import describe

def test_describe():
    assert describe(os) == "module"
    assert describe(3) == "int"
