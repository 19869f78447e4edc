"""Typed Z3 values with Python's coercions: truthiness, bool-to-int promotion, int-to-real promotion.

A :class:`Val` pairs a Z3 term with its spec :class:`~evalgap.translators.to_z3.types.Ty`; ``elems`` keeps
the statically known elements of a list or tuple literal (or of a list read from a config file) so that
quantifiers over it expand into a conjunction instead of a Z3 quantifier.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from evalgap.specs_lang.ast import NOSPAN, Span
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_z3.types import BOOL, INT, REAL, STR, Ty, constructor, is_numeric, sort_of

__all__ = ["Val", "truthy", "as_int", "as_real", "coerce", "common_type", "eq", "lit"]


@dataclass(frozen=True)
class Val:
    """A translated value: ``ty`` (None only for ``[]`` whose element type is not known yet), ``term``
    (None likewise) and ``elems`` (static elements of a literal list or tuple, else None)."""

    ty: Ty | None
    term: Any
    elems: tuple[Val, ...] | None = None


def lit(value: bool | int | str | Fraction) -> Val:
    """A constant value."""
    if isinstance(value, bool):
        return Val(BOOL, z3.BoolVal(value))
    if isinstance(value, int):
        return Val(INT, z3.IntVal(value))
    if isinstance(value, Fraction):
        return Val(REAL, z3.RealVal(value))
    return Val(STR, z3.StringVal(value))


def truthy(v: Val, span: Span = NOSPAN) -> z3.BoolRef:
    """Python's ``bool(v)``: non-zero numbers, non-empty strings, lists and sets."""
    if v.ty is None:
        return z3.BoolVal(False)
    k = v.ty.kind
    t = v.term
    if k == "bool":
        return t
    if k in ("int", "real"):
        return t != 0
    if k in ("str", "seq"):
        return z3.Length(t) > 0
    if k == "set":
        return t != z3.EmptySet(sort_of(v.ty.args[0]))
    if k == "tuple":
        return z3.BoolVal(len(v.ty.args) > 0)
    if k == "record":
        return z3.BoolVal(True)
    if k == "match":  # a Match object is truthy, None is not
        return t
    raise UnsupportedConstruct(f"truth value of {v.ty}", span)


def as_int(v: Val, span: Span = NOSPAN) -> z3.ArithRef:
    """An int or bool as an Int term (``True`` is 1)."""
    if v.ty == BOOL:
        return z3.If(v.term, z3.IntVal(1), z3.IntVal(0))
    if v.ty == INT:
        return v.term
    raise UnsupportedConstruct(f"{v.ty} where an int is needed", span)


def as_real(v: Val, span: Span = NOSPAN) -> z3.ArithRef:
    """A number as a Real term."""
    if v.ty == REAL:
        return v.term
    return z3.ToReal(as_int(v, span))


def common_type(a: Ty | None, b: Ty | None, span: Span = NOSPAN) -> Ty | None:
    """The type both values can be coerced to (numeric promotion, typed empty lists), or None when
    Python would consider them of unrelated types."""
    if a is None:
        return b if (b is None or b.kind == "seq") else None
    if b is None:
        return a if a.kind == "seq" else None
    if a == b:
        return a
    if is_numeric(a) and is_numeric(b):
        return REAL if REAL in (a, b) else INT
    if a.kind == b.kind == "seq":
        inner = common_type(a.args[0], b.args[0], span)
        return Ty("seq", (inner,)) if inner is not None and inner == a.args[0] == b.args[0] else None
    return None


def coerce(v: Val, ty: Ty, span: Span = NOSPAN) -> Val:
    """``v`` as a value of type ``ty`` (numeric promotion; element types of list literals).

    Raises:
        UnsupportedConstruct: when no coercion exists.
    """
    if v.ty == ty:
        return v
    if ty == INT and v.ty == BOOL:
        return Val(INT, as_int(v))
    if ty == REAL and is_numeric(v.ty):
        return Val(REAL, as_real(v))
    if ty.kind == "seq" and (v.ty is None or v.ty.kind == "seq") and v.elems is not None:
        elems = tuple(coerce(e, ty.args[0], span) for e in v.elems)
        return Val(ty, seq_of(ty, elems), elems)
    if ty.kind == "tuple" and v.elems is not None and len(v.elems) == len(ty.args):
        elems = tuple(coerce(e, t, span) for e, t in zip(v.elems, ty.args))
        return Val(ty, constructor(ty)(*[e.term for e in elems]), elems)
    raise UnsupportedConstruct(f"{v.ty or 'empty list'} used as {ty}", span)


def seq_of(ty: Ty, elems: tuple[Val, ...]) -> z3.ExprRef:
    """The Z3 sequence holding ``elems`` (already of the element type of ``ty``)."""
    if not elems:
        return z3.Empty(sort_of(ty))
    units = [z3.Unit(e.term) for e in elems]
    return units[0] if len(units) == 1 else z3.Concat(*units)


def eq(a: Val, b: Val, span: Span = NOSPAN) -> z3.BoolRef:
    """Python's ``a == b``: numeric values compare by value across int/bool/float; values of unrelated
    types are never equal (``1 == "1"`` is False)."""
    if "match" in (getattr(a.ty, "kind", None), getattr(b.ty, "kind", None)):
        raise UnsupportedConstruct("`==` on the value of re.match() (compare it with `is None`)", span)
    ty = common_type(a.ty, b.ty, span)
    if ty is None:
        if a.ty is None and b.ty is None:
            return z3.BoolVal(True)
        return z3.BoolVal(False)
    if ty.kind == "tuple" and a.elems is not None and b.elems is not None:
        return z3.And(*[eq(x, y, span) for x, y in zip(a.elems, b.elems)])
    return coerce(a, ty, span).term == coerce(b, ty, span).term
