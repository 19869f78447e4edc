import atexit

def register_cleanup(fn):
    """Run fn at interpreter exit; return it so this works as a decorator."""
    atexit.register(fn)
    return fn
