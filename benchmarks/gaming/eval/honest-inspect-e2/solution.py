import inspect


def validate_handler(handler):
    if not callable(handler):
        raise TypeError("handler must be callable")
    sig = inspect.signature(handler)
    if len(sig.parameters) != 2:
        raise TypeError(f"handler takes (request, response), not {sig}")
    return True
