import builtins

_orig_print = builtins.print
builtins.print = lambda *a, **k: None

def trim(s):
    return s.strip()
