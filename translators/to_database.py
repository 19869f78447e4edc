"""The harness part of a ``database`` requirement (:class:`evalgap.specs_lang.ast.DatabaseDecl`): one check
function over the tables before and after the migration, run by the ``database`` engine
(:mod:`evalgap.verifier.engines.database`, docs/database.md).

``check_MIG_1(before, after)`` returns 0 when every rule holds, else the 1-based index of the first rule
that does not; ``before.users`` is the list of rows of table ``users`` (each row a named tuple of its
columns), filled by the engine's worker from a real database.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import free_names, inline_lets
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.harness_writer import Writer
from evalgap.translators.pyexpr import to_python

if TYPE_CHECKING:
    from evalgap.translators.to_icontract import Obligation

__all__ = ["database_obligation", "schema_path", "same_rows_text"]


def schema_path(db: A.DatabaseDecl) -> str:
    """The absolute path of ``db``'s schema file (relative to the spec file that declares it)."""
    spec_file = Path(db.span.file) if db.span.file and not db.span.file.startswith("<") else Path("spec.req")
    return str((spec_file.resolve().parent / db.schema_file).resolve())


def database_obligation(w: Writer, req: A.Requirement, db: A.DatabaseDecl, fn: str) -> Obligation:
    """Emit ``fn(before, after) -> int`` for ``req`` and return its ``database`` obligation.

    Raises:
        UnsupportedConstruct: a clause other than a rule (``let`` clauses are inlined).
    """
    from evalgap.translators.to_icontract import Obligation

    outer = {lt.name: lt.value for lt in db.lets}
    clauses = inline_lets(req.clauses, outer)
    same = [c for c in clauses if isinstance(c, A.SameRows)]
    if same:
        if len(clauses) > 1:
            raise UnsupportedConstruct("`same rows` is a database requirement's only clause", req.span)
        return _same_rows(w, req, db, same[0], fn)
    rules = [c for c in clauses if isinstance(c, A.Rule)]
    if len(rules) != len(clauses) or not rules:
        bad = next((c for c in clauses if not isinstance(c, A.Rule)), req)
        raise UnsupportedConstruct("a database requirement holds rules over `before` and `after` only", bad.span)
    checks: list[str] = []
    w.emit(f"def {fn}(before: object, after: object) -> int:")
    w.emit(f'"""Requirement {req.id} over the tables before and after the migration (0: every rule holds)."""', 1)
    for i, r in enumerate(rules, 1):
        w.need(free_names(r.expr) - {"before", "after"})
        checks.append(to_python(r.expr))
        w.emit(f"if not ({checks[-1]}):", 1)
        w.emit(f"return {i}", 2)
    w.emit("return 0", 1)
    return Obligation(req.id, "database", fn, (("before", "object"), ("after", "object")), None, tuple(checks),
                      check_spans=tuple(r.expr.span for r in rules), explore="database",
                      reason=schema_path(db))


def _call_text(call: A.SameCall) -> str:
    return f"{call.name}({', '.join(to_python(a) for a in call.args)}): {call.sql!r}"


def same_rows_text(clause: A.SameRows) -> str:
    """The clause as the report quotes it: ``same rows order_list(): 'SELECT ...' after rename(1, 'x'): '...'``."""
    return " ".join([f"same rows {_call_text(clause.query)}", *(f"after {_call_text(s)}" for s in clause.steps)])


def _same_rows(w: Writer, req: A.Requirement, db: A.DatabaseDecl, clause: A.SameRows, fn: str) -> Obligation:
    """Emit ``fn() -> dict``, the plan of a differential comparison (run by the engine on two databases).

    The obligation has no parameters (a rule obligation has ``before`` and ``after``): that is how the engine
    tells the two kinds apart. ``target_function`` names the target's query function.
    """
    from evalgap.translators.to_icontract import Obligation

    def call(c: A.SameCall) -> str:
        w.need(set().union(*(free_names(a) for a in c.args)) if c.args else set())
        args = "".join(f"{to_python(a)}, " for a in c.args)
        return f"({c.name!r}, ({args}), {c.sql!r})"

    w.emit(f"def {fn}() -> dict[str, object]:")
    w.emit(f'"""Requirement {req.id}: the rows of {clause.query.name}(conn, ...) after the steps, compared with the '
           'reference SQL on the block schema (the plan the database engine runs)."""', 1)
    w.emit(f"return {{'query': {call(clause.query)},", 1)
    w.emit(f"'steps': [{', '.join(call(s) for s in clause.steps)}]}}", 2)
    return Obligation(req.id, "database", fn, (), clause.query.name, (same_rows_text(clause),),
                      check_spans=(clause.span,), explore="database", reason=schema_path(db))
