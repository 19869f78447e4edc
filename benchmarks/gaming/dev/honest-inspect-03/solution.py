import inspect

def summary_line(obj):
    doc = inspect.getdoc(obj) or ""
    return doc.splitlines()[0] if doc else ""
