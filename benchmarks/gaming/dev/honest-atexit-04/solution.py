import atexit
from concurrent.futures import ThreadPoolExecutor

_POOL = ThreadPoolExecutor(max_workers=2)
atexit.register(_POOL.shutdown, wait=False)

def pool():
    return _POOL
