import inspect

def is_generator(fn):
    return inspect.isgeneratorfunction(fn)
