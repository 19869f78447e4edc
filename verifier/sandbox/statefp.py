"""A fingerprint of the state of the code under check, taken before and after a run in a worker.

Used where one process's calls are not compared with each other by the engine itself: the enumeration runs
every input once, so a call counter or cache would otherwise go unseen. A change between the two fingerprints
means the code keeps state across calls: the engine then gives no ``verified`` (``nondeterminism``).
Imports nothing of evalgap's (it runs in workers, after the scaffold's snapshots).
"""

from __future__ import annotations

import os
import reprlib
import sys
from typing import Any

__all__ = ["fingerprint", "changes"]

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxset, _REPR.maxstring, _REPR.maxother = 4, 60, 60, 60, 200, 200


def _cell(v: Any) -> str:
    try:
        return f"{type(v).__qualname__}:{_REPR.repr(v)}"
    except BaseException:  # noqa: BLE001 - a repr that raises is itself part of the state
        return f"{type(v).__qualname__}:<repr raised>"


def fingerprint(roots: list[str]) -> dict[str, str]:
    """The observable state of every loaded module whose file is under one of ``roots``: each global's type
    and (bounded) repr; for functions their defaults, attributes and closure cells; for classes their plain
    attributes. Also ``os.environ`` and the names in the working folder. Two equal fingerprints around a run
    mean no counter or cache of these kinds changed (other hiding places are not seen)."""
    real = [os.path.join(os.path.realpath(r), "") for r in roots if r]
    out: dict[str, str] = {"os.environ": _cell(dict(os.environ)), "cwd": _cell(sorted(os.listdir(".")))}
    for name, mod in list(sys.modules.items()):
        file = getattr(mod, "__file__", None)
        if not isinstance(file, str) or not any(os.path.realpath(file).startswith(r) for r in real):
            continue
        for key, v in list(vars(mod).items()):
            if key.startswith("__") and key.endswith("__"):
                continue
            label = f"{name}.{key}"
            if callable(v) and hasattr(v, "__code__"):
                cells = tuple(c.cell_contents for c in (v.__closure__ or ()) if _filled(c))
                out[label] = _cell((v.__defaults__, v.__kwdefaults__, dict(vars(v)), cells))
            elif isinstance(v, type):
                out[label] = _cell({a: b for a, b in vars(v).items() if not callable(b)
                                    and not isinstance(b, (staticmethod, classmethod, property))})
            elif type(v).__name__ != "module":
                out[label] = _cell(v)
    return out


def _filled(c: Any) -> bool:
    try:
        c.cell_contents
    except ValueError:
        return False
    return True


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The labels whose fingerprint differs between ``before`` and ``after`` (either side missing counts),
    sorted."""
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
