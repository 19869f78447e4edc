"""Finite input domains of a requirement, for proof by exhaustive enumeration (issue 20).

A parameter's domain is finite when its type says so: ``bool``, ``None``, ``int in LO..HI``, ``str`` with a
length range and an alphabet (``str chars "ab-" len 0..3``, ``str digits len 1..2``), and ``list``, ``tuple``
and ``Optional`` of finite domains (a list with a length range). A domain is a small JSON record (``k``: its
kind) so that the engine (which counts it) and the worker (which enumerates it) read the same description:

``{"k": "bool"}``, ``{"k": "none"}``, ``{"k": "int", "lo": 0, "hi": 255}``,
``{"k": "str", "chars": "ab", "lo": 0, "hi": 3}``, ``{"k": "list", "of": D, "lo": 0, "hi": 3}``,
``{"k": "tuple", "of": [D, ...]}``, ``{"k": "opt", "of": D}``.

:func:`values` lists every value of a domain, in a fixed order and without repeats; :func:`size` counts them
without listing them, and the two agree (``len(values(d)) == size(d)``; ``tests/test_enumeration.py``). This
module imports nothing of evalgap's but the spec AST's types (the worker imports it too).
"""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["Domain", "domain_of", "size", "values"]

Domain = dict[str, Any]


def domain_of(t: Any) -> Domain | None:
    """The finite domain of a spec type (:class:`evalgap.specs_lang.ast.TypeRef`), or None when it is not
    finite (an ``int`` without a range, a ``str`` without both a length range and an alphabet, ``float``,
    ``bytes``, ``dict``, ``set``, records and classes)."""
    name = t.name
    if name == "bool" and not t.args:
        return {"k": "bool"}
    if name == "None":
        return {"k": "none"}
    if name == "int" and t.range is not None:
        lo, hi = t.range.lo, t.range.hi
        if isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool):
            return {"k": "int", "lo": lo, "hi": hi}
        return None
    if name == "str" and t.length is not None and t.alphabet is not None:
        chars = "".join(dict.fromkeys(t.alphabet.chars))
        return {"k": "str", "chars": chars, "lo": int(t.length.lo), "hi": int(t.length.hi)}
    if name in ("list", "List") and len(t.args) == 1 and t.length is not None:
        of = domain_of(t.args[0])
        return None if of is None else {"k": "list", "of": of, "lo": int(t.length.lo), "hi": int(t.length.hi)}
    if name in ("tuple", "Tuple") and t.args and not any(a.name == "..." for a in t.args):
        parts = [domain_of(a) for a in t.args]
        return None if any(p is None for p in parts) else {"k": "tuple", "of": parts}
    if name == "Optional" and len(t.args) == 1:
        of = domain_of(t.args[0])
        return None if of is None else {"k": "opt", "of": of}
    return None


def size(d: Domain) -> int:
    """How many values ``d`` holds (0 for an empty range)."""
    k = d["k"]
    if k == "bool":
        return 2
    if k == "none":
        return 1
    if k == "int":
        return max(0, int(d["hi"]) - int(d["lo"]) + 1)
    if k == "str":
        n = len(d["chars"])
        return sum(n ** length for length in range(max(0, d["lo"]), d["hi"] + 1))
    if k == "list":
        n = size(d["of"])
        return sum(n ** length for length in range(max(0, d["lo"]), d["hi"] + 1))
    if k == "tuple":
        out = 1
        for p in d["of"]:
            out *= size(p)
        return out
    if k == "opt":
        return 1 + size(d["of"])
    raise ValueError(f"unknown domain kind {k!r}")


def values(d: Domain) -> list[Any]:
    """Every value of ``d``, each once, shortest first for strings and lists."""
    k = d["k"]
    if k == "bool":
        return [False, True]
    if k == "none":
        return [None]
    if k == "int":
        return list(range(d["lo"], d["hi"] + 1))
    if k == "str":
        return ["".join(p) for n in range(max(0, d["lo"]), d["hi"] + 1) for p in itertools.product(d["chars"], repeat=n)]
    if k == "list":
        elems = values(d["of"])
        return [list(p) for n in range(max(0, d["lo"]), d["hi"] + 1) for p in itertools.product(elems, repeat=n)]
    if k == "tuple":
        return [tuple(p) for p in itertools.product(*(values(p) for p in d["of"]))]
    if k == "opt":
        return [None, *values(d["of"])]
    raise ValueError(f"unknown domain kind {k!r}")
