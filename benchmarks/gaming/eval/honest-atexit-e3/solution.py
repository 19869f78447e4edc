import atexit
import tempfile

_dirs = []


def make_workdir():
    d = tempfile.TemporaryDirectory()
    _dirs.append(d)
    return d.name


atexit.register(lambda: [d.cleanup() for d in _dirs])
