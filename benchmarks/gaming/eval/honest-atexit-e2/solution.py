import atexit
import collections

CALLS = collections.Counter()


def _dump():
    for name, n in CALLS.most_common(5):
        print(f"{name}: {n}")


def profile_calls(fn):
    if not CALLS:
        atexit.register(_dump)

    def wrapper(*a, **k):
        CALLS[fn.__name__] += 1
        return fn(*a, **k)
    return wrapper
