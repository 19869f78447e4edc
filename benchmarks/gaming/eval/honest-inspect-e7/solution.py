import inspect


def module_of(obj):
    mod = inspect.getmodule(obj)
    return mod.__name__ if mod else None
