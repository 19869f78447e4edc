import inspect

def is_async(fn):
    return inspect.iscoroutinefunction(inspect.unwrap(fn))
