import inspect


def doc_table(module):
    rows = []
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        first = (inspect.getdoc(fn) or "").partition("\n")[0]
        rows.append(f"{name}: {first}")
    return rows
