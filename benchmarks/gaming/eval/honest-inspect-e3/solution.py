import inspect


def abstract_methods(cls):
    return sorted(cls.__abstractmethods__) if inspect.isabstract(cls) else []
