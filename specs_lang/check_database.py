"""Checks of ``database`` blocks beyond their schema file: placement of ``same rows`` (EG244) and its reference
SQL compiled against the block's own schema (EG245, docs/database.md).

The schema file and the reference SQL are the spec's own text (trusted); they are compiled on a private
``:memory:`` SQLite database with an authorizer that refuses ``ATTACH`` and ``PRAGMA``, and the statements are
only prepared (``EXPLAIN``), never run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.diagnostics import DATABASE_SAME, DATABASE_SQL
from evalgap.specs_lang.errors import Diagnostic

__all__ = ["same_rows_diagnostics"]


def _placement(req: A.Requirement, owner: A.Owner, out: list[Diagnostic]) -> list[A.SameRows]:
    same = [c for c in req.clauses if isinstance(c, A.SameRows)]
    if not same:
        return []
    others = [c for c in req.clauses if not isinstance(c, (A.SameRows, A.Let))]
    if not isinstance(owner, A.DatabaseDecl):
        out.append(Diagnostic(DATABASE_SAME, same[0].span, "`same rows` compares two databases and belongs in a "
                              "`database` block", "move the requirement into `database NAME schema: \"FILE.sql\"`"))
        return []
    if len(same) > 1 or others:
        out.append(Diagnostic(DATABASE_SAME, (others or same[1:])[0].span, f"requirement {req.id}: `same rows` is "
                              "the requirement's only clause", "give each comparison and each rule its own requirement"))
    return same


def _connect(ddl: str) -> Any:
    import sqlite3

    def authorize(action: int, *_: object) -> int:
        return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_PRAGMA) else sqlite3.SQLITE_OK

    conn = sqlite3.connect(":memory:")
    conn.set_authorizer(authorize)
    conn.executescript(ddl)
    return conn


def _compile(conn: Any, call: A.SameCall, out: list[Diagnostic]) -> None:
    import sqlite3

    try:
        conn.execute("EXPLAIN " + call.sql, [None] * len(call.args))
    except (sqlite3.Error, ValueError) as exc:
        out.append(Diagnostic(DATABASE_SQL, call.span, f"the reference SQL of {call.name}(...) does not compile on "
                              f"the block's schema: {exc}", "write SQL valid on the schema's tables, with ?1, ?2, "
                              f"... for the call's {len(call.args)} argument{'s' if len(call.args) != 1 else ''}"))


def same_rows_diagnostics(req: A.Requirement, owner: A.Owner, out: list[Diagnostic]) -> None:
    """Append EG244 (placement) and EG245 (reference SQL) diagnostics of ``req``'s ``same rows`` clauses to ``out``.

    A schema file that cannot be read or run is EG242's business and skips the SQL check; a spec read from
    text (no file) is not SQL-checked.
    """
    same = _placement(req, owner, out)
    if not same or not isinstance(owner, A.DatabaseDecl) or not owner.span.file or owner.span.file.startswith("<"):
        return
    path = Path(owner.span.file).parent / owner.schema_file
    try:
        conn = _connect(path.read_text(encoding="utf-8"))
    except Exception:  # noqa: BLE001 - unreadable or invalid DDL: reported as EG242
        return
    try:
        for clause in same:
            for call in (*clause.steps, clause.query):
                _compile(conn, call, out)
    finally:
        conn.close()
