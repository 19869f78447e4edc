import inspect


def method_kind(cls, name):
    attr = inspect.getattr_static(cls, name)
    if isinstance(attr, staticmethod):
        return "static"
    if isinstance(attr, classmethod):
        return "class"
    return "instance" if inspect.isfunction(attr) else "attribute"
