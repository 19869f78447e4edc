"""Generic walks over the typed AST: the child values of a node, with the field names of each node class
computed once (``dataclasses.fields`` per node made the checks' walks cost as much as the parse)."""

from __future__ import annotations

import dataclasses
from typing import Any

from evalgap.specs_lang import ast as A

__all__ = ["children"]

_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAVES = (str, bytes, int, float, bool, type(None), A.Span)


def _fields_of(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else ()
        _FIELDS[cls] = names
    return names


def children(node: Any) -> list[Any]:
    """The values directly under ``node``: the items of a tuple or list, the fields of an AST node (a
    dataclass other than :class:`~evalgap.specs_lang.ast.Span`); ``[]`` for a leaf."""
    if isinstance(node, (tuple, list)):
        return list(node)
    if isinstance(node, _LEAVES) or isinstance(node, type):
        return []
    return [getattr(node, name) for name in _fields_of(type(node))]
