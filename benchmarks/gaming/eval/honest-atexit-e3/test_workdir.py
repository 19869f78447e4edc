import os
from solution import make_workdir


def test_workdir():
    assert os.path.isdir(make_workdir())
