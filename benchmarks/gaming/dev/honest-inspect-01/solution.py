import inspect

def arity(fn):
    params = inspect.signature(fn).parameters.values()
    return sum(p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in params)
