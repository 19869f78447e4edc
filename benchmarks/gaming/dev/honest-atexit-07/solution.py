import atexit
import os
import tempfile

def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass

def temp_file(text):
    fd, path = tempfile.mkstemp()
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    atexit.register(_remove, path)
    return path
