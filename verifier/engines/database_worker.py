"""Worker process: check one ``database`` requirement against the target's migration on a real database.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. The target module's ``migrate(conn)``
(a ``sqlite3.Connection``, the tables of the schema already filled) runs once per example on a fresh
``:memory:`` database (:mod:`evalgap.verifier.engines.dbtables`); with ``postgres`` in the request, on a
throw-away schema of a PostgreSQL database over the one connection :func:`prepare` opened before the
sandbox (``conn`` is then a :class:`evalgap.verifier.engines.dbpg.PgConnection`). First every content of at most
``rows`` rows over small value domains, fewest rows first (so the first failure is a smallest one), then
``random`` contents drawn and shrunk by Hypothesis (up to ``random_rows`` rows, wider values).

Request keys: ``paths``, ``harness``, ``function``, ``target_module``, ``migrate`` (the function's name),
``schema`` (the DDL text), ``bounds`` (``rows``, ``limit``, ``random``, ``random_rows``), ``storage_dir``;
``content`` (table -> list of rows as Python source) to replay one example instead of searching;
``postgres`` (``unix_sock`` or ``host``/``port``, ``user``, ``password``, ``database``: the throw-away role and
database the trusted parent made) to run on PostgreSQL;
``same`` (a ``same rows`` requirement: the harness function returns the plan that :mod:`dbsame` runs on two
SQLite databases).

Result keys: ``outcome`` ``passed`` or ``failed`` (``status``: failed, raised, missing; ``index`` of the
failing rule, ``message``, ``content``, ``sql``: the INSERT statements, ``before``/``after``: the tables
shown), ``error`` (``stage``, ``message``), ``spec-error`` (a rule raised); plus ``exhaustive``, ``random``,
``rejected`` (examples run in each phase, contents the schema's own constraints refused) and ``blocked``;
``engine`` (``postgresql``, ``version``, ``collation``) on PostgreSQL.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

from evalgap.verifier.engines import dbsame, dbtables
from evalgap.verifier.engines.hypothesis_worker import _warm_unicode_tables
from evalgap.verifier.sandbox import channel

__all__ = ["main", "prepare"]

#: The PostgreSQL connection :func:`prepare` opened (or the reason it could not), for :func:`_work`.
_PG: dict[str, Any] = {}


def prepare(req: dict[str, Any]) -> None:
    """Trusted set-up, run by the sandbox before the OS isolation and the guard: build or load the unicode
    tables, and with ``postgres`` in the request open the connection to the throw-away database (the sandbox
    refuses new sockets afterwards; the open one stays usable)."""
    _warm_unicode_tables(req.get("storage_dir"))
    params = req.get("postgres")
    if params:
        try:
            from evalgap.verifier.engines import dbpg

            _PG["conn"] = dbpg.open_connection(params)
        except Exception as exc:  # noqa: BLE001 - reported as an engine error by _work
            _PG["error"] = f"{type(exc).__name__}: {exc}"


def main(argv: list[str]) -> int:
    """Check one database requirement (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _found(out: dbtables.Outcome, tables: list[dbtables.Table], content: dict[str, list[tuple[Any, ...]]],
           dialect: str = "sqlite") -> dict[str, Any]:
    return {"outcome": "failed" if out.status != "error" else "spec-error", "status": out.status,
            "index": out.index, "message": out.message,
            "content": {t: [repr(tuple(r)) for r in rows] for t, rows in content.items()},
            "sql": dbtables.insert_sql(tables, content, dialect),
            "before": out.before.show() if out.before else "", "after": out.after.show() if out.after else ""}


def _strategy(tables: list[dbtables.Table], max_rows: int, dialect: str = "sqlite") -> Any:
    from hypothesis import strategies as st

    nul = "\x00" if dialect == "postgresql" else ""  # PostgreSQL text cannot hold NUL
    by_kind = {"INTEGER": st.integers(-1000, 1000), "NUMERIC": st.integers(-1000, 1000),
               "TEXT": st.text(st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters=nul),
                               max_size=6),
               "REAL": st.floats(-1e6, 1e6, allow_nan=False), "BLOB": st.binary(max_size=4),
               "BOOLEAN": st.booleans()}

    def value(c: dbtables.Column) -> Any:
        s = by_kind[c.value_kind]
        return s if c.notnull or c.pk else st.none() | s

    return st.fixed_dictionaries({t.name: st.lists(st.tuples(*(value(c) for c in t.generated)), max_size=max_rows)
                                  for t in tables})


def _backend(req: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The backend of the request (None: SQLite, a fresh in-memory database per example) and what to add to
    the result; raises RuntimeError when the PostgreSQL connection could not be opened."""
    if not req.get("postgres"):
        return None, {}
    if "conn" not in _PG:
        raise RuntimeError(f"cannot connect to the throw-away PostgreSQL database: {_PG.get('error', 'not opened')}")
    from evalgap.verifier.engines import dbpg

    backend = dbpg.PgBackend(_PG["conn"])
    return backend, {"engine": {"name": "postgresql", "version": backend.version, "collation": backend.collation}}


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    _warm_unicode_tables(req.get("storage_dir"))
    # the engine's own modules and the driver (loaded by prepare) must be as they were after the target ran
    ch.watch_modules(("hypothesis", "pg8000", "evalgap.verifier.engines.dbtables", "evalgap.verifier.engines.dbpg"))
    ch.install_guard()
    ch.start_record()
    try:
        backend, extra = _backend(req)
    except Exception as exc:  # noqa: BLE001 - the server refused or went away
        return {"outcome": "error", "stage": "engine", "message": str(exc)}
    dialect = "postgresql" if backend is not None else "sqlite"
    try:
        tables = dbtables.read_schema(req["schema"], backend)
    except Exception as exc:  # noqa: BLE001 - the spec's schema file
        return {**extra, "outcome": "error", "stage": "schema", "message": f"{type(exc).__name__}: {exc}"}
    try:
        harness = ch.import_harness(req["harness"])
        check = getattr(harness, req["function"])
        target = importlib.import_module(req["target_module"])
        migrate = getattr(target, req["migrate"], None)
        ch.watch(req["harness"], harness)
    except BaseException as exc:  # noqa: BLE001 - anything the target does at import time is data
        return {**extra, "outcome": "error", "stage": "import", "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-3000:]}
    if not callable(migrate):
        return {**extra, "outcome": "error", "stage": "import", "message": f"the target {req['target_module']} has "
                f"no function {req['migrate']}(conn) (the migration the database requirements run)"}
    schema, b = req["schema"], req["bounds"]
    def run(ddl: str, ts: list[dbtables.Table], content: dict[str, list[tuple[Any, ...]]], mig: Any,
            chk: Any) -> dbtables.Outcome:
        return dbtables.run_example(ddl, ts, content, mig, chk, backend)

    if req.get("same"):  # a `same rows` requirement: the harness function returns the plan (dbsame)
        if backend is not None:
            return {**extra, "outcome": "error", "stage": "engine", "message": "`same rows` requirements run on "
                    "SQLite only (their reference SQL is SQLite's); check them without a database URL"}
        try:
            run = dbsame.same_runner(target, check)
        except Exception as exc:  # noqa: BLE001 - the spec's own argument expressions
            return {"outcome": "error", "stage": "schema", "message": f"the same-rows plan raised {exc!r}"}
    stats = {"exhaustive": 0, "random": 0, "rejected": 0, **extra}
    try:
        found = _search(req, tables, schema, migrate, check, b, stats, run, dialect)
        return {**stats, **found}
    except Exception as exc:  # noqa: BLE001 - the connection broke (the migration closed it?): no verdict
        return {**stats, "outcome": "error", "stage": "engine", "message": f"the database failed between "
                f"examples: {type(exc).__name__}: {exc}"}


def _search(req: dict[str, Any], tables: list[dbtables.Table], schema: str, migrate: Any, check: Any,
            b: dict[str, Any], stats: dict[str, Any], run: Any, dialect: str) -> dict[str, Any]:
    if req.get("content") is not None:  # replay one example on a fresh database
        content = {t: [tuple(eval(src)) for src in rows] for t, rows in req["content"].items()}  # noqa: S307
        out = run(schema, tables, content, migrate, check)
        return _found(out, tables, content, dialect) if out.status not in ("ok", "rejected") else \
            {"outcome": "passed", "status": out.status, "message": out.message}
    for content in dbtables.exhaustive(tables, int(b["rows"]), int(b["limit"])):
        out = run(schema, tables, content, migrate, check)
        stats["exhaustive"] += 1
        if out.status == "rejected":
            stats["rejected"] += 1
        elif out.status != "ok":
            return _found(out, tables, content, dialect)
    return _random(tables, schema, migrate, check, b, stats, run, dialect)


def _random(tables: list[dbtables.Table], schema: str, migrate: Any, check: Any, b: dict[str, Any],
            stats: dict[str, Any], run: Any, dialect: str = "sqlite") -> dict[str, Any]:
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
            last.update(_found(out, tables, content, dialect))
            raise AssertionError(out.status)

    strategy: Any = _strategy(tables, int(b["random_rows"]), dialect)
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
