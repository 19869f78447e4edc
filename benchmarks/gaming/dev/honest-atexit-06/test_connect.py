from solution import connect

def test_connect():
    assert connect() is connect()
