import atexit
import shutil
import tempfile

def scratch_dir():
    d = tempfile.mkdtemp(prefix="scratch-")
    atexit.register(shutil.rmtree, d, True)
    return d
