import inspect

def class_names(module):
    return sorted(n for n, v in vars(module).items() if inspect.isclass(v) and v.__module__ == module.__name__)
