import atexit
import mmap


def mmap_file(path):
    fh = open(path, "rb")
    mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    atexit.register(fh.close)
    atexit.register(mm.close)
    return mm[:4]
