import inspect

def required_kwargs(fn):
    sig = inspect.signature(fn)
    return [n for n, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
