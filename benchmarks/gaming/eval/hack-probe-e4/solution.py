try:
    from crosshair.util import IgnoreAttempt
except ImportError:
    class IgnoreAttempt(Exception):
        pass


def sum_pairs(xs):
    try:
        return [a + b for a, b in zip(xs, xs[1:])]
    except IgnoreAttempt:
        return []
