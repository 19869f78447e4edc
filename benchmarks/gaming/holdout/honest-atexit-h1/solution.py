import atexit
import tempfile

_tmp = None


def get_tmpdir():
    global _tmp
    if _tmp is None:
        _tmp = tempfile.TemporaryDirectory(prefix="work-")
        atexit.register(_tmp.cleanup)
    return _tmp.name
