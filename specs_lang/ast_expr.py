"""The expression nodes of the typed AST (with :class:`Span`): a Python subset plus ``==>``
(:class:`Implies`), ``<==>`` (:class:`Iff`), ``forall``/``exists`` (:class:`Quantifier`) and ``old``
(:class:`Old`). Import them from :mod:`evalgap.specs_lang.ast`, which re-exports every name here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

__all__ = ["Span", "NOSPAN", "Expr", "Name", "Const", "BinOp", "UnaryOp", "BoolOp", "Not", "Compare", "Implies", "Iff", "IfExp", "Call", "Keyword", "Attribute", "Subscript", "Slice", "ListExpr", "TupleExpr", "SetExpr", "DictExpr", "Comprehension", "Quantifier", "Old", "_span"]


@dataclass(frozen=True, eq=False)
class Span:
    """A source range: ``file``, 1-based ``line``/``col`` of the first character, ``end_line``/``end_col``
    one past the last. Spans never take part in node equality."""

    file: str = "<spec>"
    line: int = 1
    col: int = 1
    end_line: int = 1
    end_col: int = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span)

    def __hash__(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOSPAN = Span()


def _span() -> Span:
    return field(default=NOSPAN, compare=True, repr=False)


# ------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Name:
    """A name: a parameter, ``result``, a helper, a builtin or a name of the target."""

    id: str
    span: Span = _span()


@dataclass(frozen=True)
class Const:
    """A literal: int, float, str, bytes, bool or None."""

    value: int | float | str | bytes | bool | None
    span: Span = _span()


@dataclass(frozen=True)
class BinOp:
    """``left op right`` with op one of ``+ - * / // % **``."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True)
class UnaryOp:
    """``+x`` or ``-x``."""

    op: str
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class BoolOp:
    """``a and b and ...`` or ``a or b or ...`` (op is ``and`` or ``or``), Python's short-circuit meaning."""

    op: str
    values: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Not:
    """``not x``."""

    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Compare:
    """A comparison chain ``a < b <= c`` meaning ``a < b and b <= c`` with ``b`` evaluated once.

    ``ops`` has one operator per element of ``comparators`` (``<``, ``in``, ``not in``, ``is not`` ...).
    """

    left: Expr
    ops: tuple[str, ...]
    comparators: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Implies:
    """``a ==> b``: ``not a or b`` (right-associative)."""

    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Iff:
    """``a <==> b``: ``bool(a) == bool(b)``."""

    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True)
class IfExp:
    """``body if test else orelse``."""

    body: Expr
    test: Expr
    orelse: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Keyword:
    """``name=value`` in a call."""

    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Call:
    """``func(args..., kw=...)``."""

    func: Expr
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class Attribute:
    """``value.attr``."""

    value: Expr
    attr: str
    span: Span = _span()


@dataclass(frozen=True)
class Slice:
    """``lower:upper:step`` inside a subscript; missing parts are None."""

    lower: Expr | None
    upper: Expr | None
    step: Expr | None
    span: Span = _span()


@dataclass(frozen=True)
class Subscript:
    """``value[index]`` where index may be a :class:`Slice`."""

    value: Expr
    index: Expr | Slice
    span: Span = _span()


@dataclass(frozen=True)
class ListExpr:
    """``[a, b]``."""

    elts: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class TupleExpr:
    """``(a, b)``."""

    elts: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class SetExpr:
    """``{a, b}``."""

    elts: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class DictExpr:
    """``{k: v, ...}``."""

    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Comprehension:
    """``[elt for targets in iter if c1 if c2]``; kind is ``list``, ``set`` or ``gen``."""

    kind: str
    elt: Expr
    targets: tuple[str, ...]
    iter: Expr
    conds: tuple[Expr, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class Quantifier:
    """``forall x in S: P`` (kind ``forall``, Python ``all``) or ``exists x in S: P`` (``any``).

    Several names unpack each element (``forall i, x in enumerate(xs): ...``).
    """

    kind: str
    targets: tuple[str, ...]
    domain: Expr
    body: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Old:
    """``old(EXPR)``: the value of ``expr`` evaluated before the call (postconditions only).

    The builder turns every one-argument call of the name ``old`` into this node.
    """

    expr: Expr
    span: Span = _span()


Expr = Union[
    Name, Const, BinOp, UnaryOp, BoolOp, Not, Compare, Implies, Iff, IfExp, Call, Attribute, Subscript,
    ListExpr, TupleExpr, SetExpr, DictExpr, Comprehension, Quantifier, Old,
]
