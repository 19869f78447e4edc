import os
from solution import scratch_dir

def test_scratch():
    assert os.path.isdir(scratch_dir())
