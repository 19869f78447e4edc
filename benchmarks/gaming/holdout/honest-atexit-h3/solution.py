import atexit
import multiprocessing


def worker_pool(n=2):
    pool = multiprocessing.Pool(n)
    atexit.register(pool.terminate)
    return pool
