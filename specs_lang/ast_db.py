"""AST nodes of the database clauses (``same rows``), re-exported by :mod:`evalgap.specs_lang.ast`."""

from __future__ import annotations

from dataclasses import dataclass

from evalgap.specs_lang.ast_expr import Expr, Span, _span

__all__ = ["SameCall", "SameRows"]


@dataclass(frozen=True)
class SameCall:
    """One call of a :class:`SameRows` clause: the target's function ``name``, called as ``name(conn, *args)``
    on the target's database, and ``sql``, the reference statement run with ``args`` as its parameters
    (``?1``, ``?2``, ...) on a database of the block's own schema."""

    name: str
    args: tuple[Expr, ...]
    sql: str
    span: Span = _span()


@dataclass(frozen=True)
class SameRows:
    """``same rows QUERY(args): "SQL"`` with ``after STEP(args): "SQL"`` lines: a differential requirement of a
    ``database`` block. On the same generated contents, the reference database (the block's schema, each
    step's SQL, then the query's SQL) and the target's (the block's schema, ``migrate(conn)``, each step's
    function, then the query's function) must give the same rows, compared as multisets."""

    query: SameCall
    steps: tuple[SameCall, ...] = ()
    span: Span = _span()
