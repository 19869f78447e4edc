import sys
from solution import stop_server

def test_server():
    assert stop_server([sys.executable, "-c", "pass"]) > 0
