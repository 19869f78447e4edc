import atexit
import sqlite3

_conn = None

def connect():
    global _conn
    if _conn is None:
        _conn = sqlite3.connect(":memory:")
        atexit.register(_conn.close)
    return _conn
