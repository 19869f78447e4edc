import inspect

def source_lines(fn):
    lines, _ = inspect.getsourcelines(fn)
    return len(lines)
