"""AST nodes of scenario statements (assignments, calls, ``expect``, ``for``, ``if``), re-exported by
:mod:`evalgap.specs_lang.ast`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from evalgap.specs_lang.ast_expr import Expr, Span, _span

__all__ = ["Assign", "ExprStmt", "Expect", "ExpectRaises", "For", "If", "Stmt"]


@dataclass(frozen=True)
class Assign:
    """``a = expr`` or ``a, b = expr``."""

    targets: tuple[str, ...]
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class ExprStmt:
    """An expression evaluated for its effect (usually a call)."""

    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Expect:
    """``expect EXPR``: the expression must be true at this point of the scenario."""

    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class ExpectRaises:
    """``expect raises EXC: CALL``: evaluating ``call`` must raise ``exception`` (or a subclass)."""

    exception: str
    call: Expr
    span: Span = _span()


@dataclass(frozen=True)
class For:
    """``for x in EXPR:`` with an indented body: the body runs once per element of a finite value."""

    targets: tuple[str, ...]
    iter: Expr
    body: tuple["Stmt", ...]
    span: Span = _span()


@dataclass(frozen=True)
class If:
    """``if EXPR:`` with an indented body and an optional ``else:`` block."""

    test: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...] = ()
    span: Span = _span()


Stmt = Union[Assign, ExprStmt, Expect, ExpectRaises, For, If]
