"""Arithmetic of spec expressions in Z3 with Python's meaning: ``//`` and ``%`` floor (Python reference,
"Binary arithmetic operations": ``x == (x//y)*y + (x%y)``, the remainder has the sign of ``y``) where SMT-LIB's
``div``/``mod`` are Euclidean; ``/`` on ints is exact real division (noted); ``+`` concatenates strings and
sequences; ``**`` only with a constant exponent in 0..64. Division and modulo by zero are definedness
conditions (``t.require``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_z3.types import INT, REAL, STR, is_numeric
from evalgap.translators.to_z3.values import Val, as_int, as_real, coerce, common_type

if TYPE_CHECKING:
    from evalgap.translators.to_z3.expr import Translator

__all__ = ["arith"]


def _py_floordiv(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    q, r = a / b, a % b  # SMT-LIB: Euclidean, 0 <= r < |b|
    return z3.If(z3.And(b < 0, r != 0), q - 1, q)


def _py_mod(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    r = a % b
    return z3.If(z3.And(b < 0, r != 0), r + b, r)


def arith(t: Translator, op: str, a: Val, b: Val, span: A.Span) -> Val:
    """``a op b`` for ``+ - * / // % **`` with Python's typing and floor semantics."""
    if op == "+" and a.ty is not None and b.ty is not None and a.ty == b.ty == STR:
        return Val(STR, z3.Concat(a.term, b.term))
    if op == "+" and (a.ty is None or a.ty.kind == "seq") and (b.ty is None or b.ty.kind == "seq"):
        ty = common_type(a.ty, b.ty, span)
        if ty is None:
            if a.ty is None and b.ty is None:
                return Val(None, None, ())
            raise UnsupportedConstruct(f"{a.ty} + {b.ty}", span)
        ca, cb = coerce(a, ty, span), coerce(b, ty, span)
        elems = ca.elems + cb.elems if ca.elems is not None and cb.elems is not None else None
        return Val(ty, z3.Concat(ca.term, cb.term), elems)
    if not (is_numeric(a.ty) and is_numeric(b.ty)):
        raise UnsupportedConstruct(f"{a.ty or 'list'} {op} {b.ty or 'list'}", span)
    real = REAL in (a.ty, b.ty)
    if op == "/":
        t.note("`/` modelled as exact real division (Python rounds to float)")
        x, y = as_real(a, span), as_real(b, span)
        t.require(y != 0)
        return Val(REAL, x / y)
    if op in ("//", "%"):
        if real:
            raise UnsupportedConstruct(f"float {op}", span)
        x, y = as_int(a, span), as_int(b, span)
        t.require(y != 0)
        return Val(INT, _py_floordiv(x, y) if op == "//" else _py_mod(x, y))
    if op == "**":
        if b.ty != INT or not z3.is_int_value(z3.simplify(b.term)):
            raise UnsupportedConstruct("** with a non-constant exponent", span)
        k = z3.simplify(b.term).as_long()
        if k < 0 or k > 64:
            raise UnsupportedConstruct(f"** {k}", span, "exponent must be a constant in 0..64")
        base = as_real(a, span) if real else as_int(a, span)
        out: z3.ArithRef = z3.RealVal(1) if real else z3.IntVal(1)
        for _ in range(k):
            out = out * base
        return Val(REAL if real else INT, out)
    x, y = (as_real(a, span), as_real(b, span)) if real else (as_int(a, span), as_int(b, span))
    res = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y}.get(op)
    if res is None:
        raise UnsupportedConstruct(f"operator {op}", span)
    return Val(REAL if real else INT, res())
