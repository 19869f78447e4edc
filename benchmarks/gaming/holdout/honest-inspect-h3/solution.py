from inspect import Parameter, signature


def positional_count(fn):
    kinds = (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in signature(fn).parameters.values() if p.kind in kinds)
