from inspect import signature


def param_names(func):
    return list(signature(func).parameters)
