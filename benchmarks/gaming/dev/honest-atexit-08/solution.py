import atexit
import time

_start = time.perf_counter()

def _print_elapsed():
    print(f"ran for {time.perf_counter() - _start:.1f} s")

def start_timer(verbose=False):
    if verbose:
        atexit.register(_print_elapsed)
    return verbose
