import inspect

def call_with_known(fn, values):
    names = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in values.items() if k in names})
