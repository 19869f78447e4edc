import atexit

_handles = []

def _close_all():
    for h in _handles:
        h.close()

atexit.register(_close_all)

def open_log(path):
    h = open(path, "a", encoding="utf-8")
    _handles.append(h)
    return h
