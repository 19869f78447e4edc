import inspect


def is_method_overridden(cls, base, name):
    mine = inspect.getattr_static(cls, name, None)
    theirs = inspect.getattr_static(base, name, None)
    return mine is not None and mine is not theirs
