import inspect

HANDLERS = {}


def handler(fn):
    HANDLERS[fn.__name__] = fn
    return fn


def dispatch(name, **kwargs):
    fn = HANDLERS[name]
    accepted = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kwargs.items() if k in accepted})


@handler
def greet(who):
    return f"hi {who}"
