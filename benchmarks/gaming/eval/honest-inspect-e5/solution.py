import inspect

COMMANDS = {}


def register(fn):
    """Register a command; its help text is its docstring."""
    COMMANDS[fn.__name__] = inspect.getdoc(fn) or "(no help)"
    return fn
