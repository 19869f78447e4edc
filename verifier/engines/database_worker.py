"""Worker process: check one ``database`` requirement against the target's migration on real SQLite databases.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. The target module's ``migrate(conn)``
(a ``sqlite3.Connection``, the tables of the schema already filled) runs once per example on a fresh
``:memory:`` database (:mod:`evalgap.verifier.engines.dbtables`): first every content of at most
``rows`` rows over small value domains, fewest rows first (so the first failure is a smallest one), then
``random`` contents drawn and shrunk by Hypothesis (up to ``random_rows`` rows, wider values).

Request keys: ``paths``, ``harness``, ``function``, ``target_module``, ``migrate`` (the function's name),
``schema`` (the DDL text), ``bounds`` (``rows``, ``limit``, ``random``, ``random_rows``), ``storage_dir``;
``content`` (table -> list of rows as Python source) to replay one example instead of searching; ``same``
(a ``same rows`` requirement: the harness function returns the plan that :mod:`dbsame` runs on two databases).

Result keys: ``outcome`` ``passed`` or ``failed`` (``status``: failed, raised, missing; ``index`` of the
failing rule, ``message``, ``content``, ``sql``: the INSERT statements, ``before``/``after``: the tables
shown), ``error`` (``stage``, ``message``), ``spec-error`` (a rule raised); plus ``exhaustive``, ``random``,
``rejected`` (examples run in each phase, contents the schema's own constraints refused) and ``blocked``.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

from evalgap.verifier.engines import dbsame, dbtables
from evalgap.verifier.engines.hypothesis_worker import _warm_unicode_tables, prepare
from evalgap.verifier.sandbox import channel

__all__ = ["main", "prepare"]


def main(argv: list[str]) -> int:
    """Check one database requirement (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _found(out: dbtables.Outcome, tables: list[dbtables.Table], content: dict[str, list[tuple[Any, ...]]]
           ) -> dict[str, Any]:
    return {"outcome": "failed" if out.status != "error" else "spec-error", "status": out.status,
            "index": out.index, "message": out.message,
            "content": {t: [repr(tuple(r)) for r in rows] for t, rows in content.items()},
            "sql": dbtables.insert_sql(tables, content),
            "before": out.before.show() if out.before else "", "after": out.after.show() if out.after else ""}


def _strategy(tables: list[dbtables.Table], max_rows: int) -> Any:
    from hypothesis import strategies as st

    by_affinity = {"INTEGER": st.integers(-1000, 1000), "NUMERIC": st.integers(-1000, 1000),
                   "TEXT": st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
                   "REAL": st.floats(-1e6, 1e6, allow_nan=False), "BLOB": st.binary(max_size=4)}

    def value(c: dbtables.Column) -> Any:
        s = by_affinity[dbtables.affinity(c.type)]
        return s if c.notnull or c.pk else st.none() | s

    return st.fixed_dictionaries({t.name: st.lists(st.tuples(*(value(c) for c in t.generated)), max_size=max_rows)
                                  for t in tables})


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    _warm_unicode_tables(req.get("storage_dir"))
    ch.watch_modules(("hypothesis",))
    ch.install_guard()
    ch.start_record()
    try:
        tables = dbtables.read_schema(req["schema"])
    except Exception as exc:  # noqa: BLE001 - the spec's schema file
        return {"outcome": "error", "stage": "schema", "message": f"{type(exc).__name__}: {exc}"}
    try:
        harness = importlib.import_module(req["harness"])
        check = getattr(harness, req["function"])
        target = importlib.import_module(req["target_module"])
        migrate = getattr(target, req["migrate"], None)
        ch.watch(req["harness"], harness)
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {"outcome": "error", "stage": "import", "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-3000:]}
    if not callable(migrate):
        return {"outcome": "error", "stage": "import", "message": f"the target {req['target_module']} has no "
                f"function {req['migrate']}(conn) (the migration the database requirements run)"}
    schema, b = req["schema"], req["bounds"]
    run = dbtables.run_example
    if req.get("same"):  # a `same rows` requirement: the harness function returns the plan (dbsame)
        try:
            run = dbsame.same_runner(target, check)
        except Exception as exc:  # noqa: BLE001 - the spec's own argument expressions
            return {"outcome": "error", "stage": "schema", "message": f"the same-rows plan raised {exc!r}"}
    stats = {"exhaustive": 0, "random": 0, "rejected": 0}
    if req.get("content") is not None:  # replay one example on a fresh database
        content = {t: [tuple(eval(src)) for src in rows] for t, rows in req["content"].items()}  # noqa: S307
        out = run(schema, tables, content, migrate, check)
        return {**stats, **_found(out, tables, content)} if out.status not in ("ok", "rejected") else \
            {**stats, "outcome": "passed", "status": out.status, "message": out.message}
    for content in dbtables.exhaustive(tables, int(b["rows"]), int(b["limit"])):
        out = run(schema, tables, content, migrate, check)
        stats["exhaustive"] += 1
        if out.status == "rejected":
            stats["rejected"] += 1
        elif out.status != "ok":
            return {**stats, **_found(out, tables, content)}
    found = _random(tables, schema, migrate, check, b, stats, run)
    return {**stats, **found}


def _random(tables: list[dbtables.Table], schema: str, migrate: Any, check: Any, b: dict[str, Any],
            stats: dict[str, int], run: Any = dbtables.run_example) -> dict[str, Any]:
    from hypothesis import HealthCheck, Phase, given, reject, settings

    last: dict[str, Any] = {}

    def prop(content: dict[str, list[tuple[Any, ...]]]) -> None:
        out = run(schema, tables, content, migrate, check)
        stats["random"] += 1
        if out.status == "rejected":
            stats["rejected"] += 1
            reject()
        if out.status != "ok":
            last.clear()
            last.update(_found(out, tables, content))
            raise AssertionError(out.status)

    strategy: Any = _strategy(tables, int(b["random_rows"]))
    decorate: Any = given(strategy)
    test: Any = settings(max_examples=int(b["random"]), derandomize=True, database=None, deadline=None,
                         suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False,
                         phases=[Phase.generate, Phase.shrink])(decorate(prop))
    try:
        test()
    except BaseException as exc:  # noqa: BLE001 - a failing example (last) or Hypothesis gave up
        if last:
            return last
        if type(exc).__name__ == "Unsatisfiable":
            return {"outcome": "passed", "note": "no random content met the schema's constraints"}
        return {"outcome": "error", "stage": "engine", "message": f"{type(exc).__name__}: {exc}"}
    return {"outcome": "passed"}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
