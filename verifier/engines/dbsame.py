"""Differential database requirements (``same rows``, docs/database.md): the same generated table contents on
two databases, the reference one (the block's schema, the steps' SQL, the query's SQL) and the target's (the
block's schema, the target's ``migrate(conn)``, the steps' functions, the query's function); the rows of the
two queries must be equal as multisets.

:func:`run_same` runs inside the sandboxed ``database`` worker (the steps and the query are target code) and
goes through :func:`evalgap.verifier.engines.dbtables.run_example` for both databases, so each is a fresh
database of whatever engine ``run_example`` uses. :func:`reproducer` is used by the parent to write a
standalone script. This module imports neither sqlite3 nor the target at import time.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from evalgap.translators.to_icontract import Obligation
    from evalgap.verifier.engines import dbtables
    from evalgap.verifier.project.targets import Target

__all__ = ["run_same", "same_runner", "plan_text", "reproducer"]

#: A plan as the harness returns it: ``{"query": (name, args, sql), "steps": [(name, args, sql), ...]}``.
Plan = dict[str, Any]


def _rows(value: Any) -> list[tuple[Any, ...]]:
    """A query's result (a cursor, a list of tuples, of ``sqlite3.Row`` or of sequences) as a list of tuples."""
    return [tuple(r) for r in value]


def _multiset(rows: list[tuple[Any, ...]]) -> collections.Counter[str]:
    # repr: rows may hold unhashable values a target returns (lists); 1 and 1.0 stay distinct, as in SQL output
    return collections.Counter(repr(r) for r in rows)


def plan_text(plan: Plan, module: str = "target") -> tuple[str, str]:
    """The two sides of ``plan`` as one line each: the reference SQL (with its parameters) and the target calls."""
    def sql(step: tuple[str, tuple[Any, ...], str]) -> str:
        return f"{step[2]}" + (f" with {tuple(step[1])!r}" if step[1] else "")

    def call(step: tuple[str, tuple[Any, ...], str]) -> str:
        return f"{module}.{step[0]}({', '.join(['conn', *map(repr, step[1])])})"

    steps = list(plan["steps"])
    ref = "; ".join([*map(sql, steps), sql(plan["query"])])
    tgt = "; ".join([f"{module}.migrate(conn)", *map(call, steps), call(plan["query"])])
    return ref, tgt


def run_same(ddl: str, tables: list[dbtables.Table], content: dict[str, list[tuple[Any, ...]]],
             target: Any, migrate: Callable[[Any], Any], plan: Plan) -> dbtables.Outcome:
    """One example of a ``same rows`` requirement on two fresh databases (see the module docstring).

    Returns:
        An :class:`~evalgap.verifier.engines.dbtables.Outcome`: ``ok``; ``rejected`` (the content breaks the
        schema's constraints, or a reference step breaks one on it: an ``IntegrityError``); ``failed`` (index 1, ``message`` names both row lists); ``raised`` (the target's
        migration, a step or the query raised: ``message`` says which); ``error`` (the reference SQL raised: a
        spec error). ``before`` is the content, ``after`` the target's tables after its query.
    """
    from evalgap.verifier.engines import dbtables

    got: dict[str, Any] = {}
    want: dict[str, Any] = {}

    def reference(conn: Any) -> None:
        try:
            for _, args, sql in plan["steps"]:
                conn.execute(sql, tuple(args))
            _, args, sql = plan["query"]
            want["rows"] = _rows(conn.execute(sql, tuple(args)).fetchall())
        except Exception as exc:  # noqa: BLE001 - the spec's own SQL
            # a constraint the step breaks on this content (a foreign key to a missing row): not applicable here
            want["rejected" if type(exc).__name__ == "IntegrityError" else "error"] = \
                f"{type(exc).__name__}: {exc} (in the reference SQL {sql!r})"

    def on_target(conn: Any) -> None:
        got["stage"] = "migrate(conn)"
        migrate(conn)
        for name, args, _ in plan["steps"]:
            got["stage"] = f"{name}(conn, ...)"
            getattr(target, name)(conn, *args)
        name, args, _ = plan["query"]
        got["stage"] = f"{name}(conn, ...)"
        got["rows"] = _rows(getattr(target, name)(conn, *args))

    ref = dbtables.run_example(ddl, tables, content, reference, lambda before, after: 0)
    if ref.status == "rejected":
        return ref
    if "rejected" in want:
        return dbtables.Outcome("rejected", message=want["rejected"])
    if "error" in want or ref.status != "ok":
        return dbtables.Outcome("error", message=want.get("error", ref.message), before=ref.before)
    out = dbtables.run_example(ddl, tables, content, on_target, lambda before, after: 0)
    if out.status == "raised":
        out.message = f"{got.get('stage', 'the target')} raised {out.message}"
        return out
    if out.status != "ok":
        return out
    if _multiset(want["rows"]) == _multiset(got["rows"]):
        return out
    name = plan["query"][0]
    ref_text, tgt_text = plan_text(plan, str(getattr(target, "__name__", "target")))
    message = (f"the rows differ: the reference SQL gives {want['rows']!r}, the target's {name}(conn) gives "
               f"{got['rows']!r} (compared as multisets).\n  reference database: {ref_text}\n  target database: "
               f"{tgt_text}")
    return dbtables.Outcome("failed", 1, message, out.before, out.after)


def same_runner(target: Any, plan_of: Callable[[], Plan]) -> Callable[..., dbtables.Outcome]:
    """A function with :func:`~evalgap.verifier.engines.dbtables.run_example`'s signature that runs the
    ``same rows`` plan returned by the harness's ``plan_of()`` instead of evaluating rules (for the worker)."""
    plan = plan_of()

    def run(ddl: str, tables: list[dbtables.Table], content: dict[str, list[tuple[Any, ...]]],
            migrate: Callable[[Any], Any], check: Any) -> dbtables.Outcome:
        return run_same(ddl, tables, content, target, migrate, plan)

    return run


def reproducer(ob: Obligation, target: Target, hdir: str, harness_module: str, sql: list[str]) -> str:
    """Standalone Python: both databases from the schema and the rows, the plan run on each, both row lists
    printed (the harness module, in ``hdir``, holds the plan)."""
    fill = [f"    conn.execute({s!r})" for s in sql]
    lines = ["import sqlite3", "import sys", "", f"sys.path[:0] = {[hdir, *target.paths]!r}",
             f"import {target.module}", f"import {harness_module}", "", f"plan = {harness_module}.{ob.function}()",
             "", "", "def fresh():", '    conn = sqlite3.connect(":memory:", isolation_level=None)',
             '    conn.execute("PRAGMA foreign_keys = ON")',
             f"    conn.executescript(open({ob.reason!r}, encoding='utf-8').read())", *fill, "    return conn", "",
             "", "ref = fresh()", "for _, args, sql in plan['steps']:", "    ref.execute(sql, tuple(args))",
             "print('reference:', ref.execute(plan['query'][2], tuple(plan['query'][1])).fetchall())",
             "conn = fresh()", f"{target.module}.migrate(conn)", "for name, args, _ in plan['steps']:",
             f"    getattr({target.module}, name)(conn, *args)",
             f"print('target:', list(getattr({target.module}, plan['query'][0])(conn, *plan['query'][1])))"]
    return "\n".join(lines) + "\n"
