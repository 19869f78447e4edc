import atexit
import os

def lock_file(path):
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    os.close(fd)
    atexit.register(os.unlink, path)
    return path
