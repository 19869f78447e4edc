"""The ``database`` engine: a requirement of a ``database`` block is checked against the target's migration on
a real SQLite database, or on PostgreSQL where a server URL is given (``Settings.database_url``;
docs/database.md).

The worker (:mod:`evalgap.verifier.engines.database_worker`) creates the schema from the block's DDL file on
a fresh in-memory database per example, fills the tables (every content of a few rows over small value
domains, fewest rows first; then random contents that Hypothesis shrinks), runs the target's
``migrate(conn)`` for real and evaluates the rules over the tables before and after. A failing content is
replayed on a fresh database in a new worker; only a reproduced failure is ``refuted``, and its
counterexample is the smallest table contents with the SQL that reproduces them. A pass is
``no-counterexample`` with its bounds (rows, value domains, random examples, the engine): never
``verified``.

On PostgreSQL each worker run (the search, and the replay) gets a throw-away role and database made here, in
the trusted process (:class:`evalgap.verifier.engines.dbserver.Scratch`), and dropped when the worker ends;
the worker logs in before its sandbox is entered.

This module does not import hypothesis, sqlite3 or the target: only the worker does.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgap.verifier.engines.common import check_text, worker_failure
from evalgap.verifier.engines.dbsame import reproducer as same_reproducer
from evalgap.verifier.engines.hypothesis import _storage_dir
from evalgap.verifier.engines.registry import EngineJob
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.sandbox.runner import Limits, WorkerOutcome, run_worker, wall_limit

if TYPE_CHECKING:
    from evalgap.translators.to_icontract import Harness, Obligation
    from evalgap.verifier.options import Settings
    from evalgap.verifier.project.targets import Target

__all__ = ["DatabaseEngine", "DB_BOUNDS", "run_database", "replay_content"]

#: The search bounds: rows in all for the exhaustive phase, its cap on contents, random examples and their rows.
DB_BOUNDS: dict[str, int] = {"rows": 2, "limit": 5000, "random": 100, "random_rows": 5}

#: SQLite behaviour a rule over rows may depend on, stated with every verdict (docs/database.md).
ENGINE_NOTE = ("engine: SQLite (stdlib sqlite3) in memory, foreign keys on; SQLite's type affinity, NULL "
               "ordering and BINARY collation apply, PostgreSQL may differ")


def engine_note(res: dict[str, Any]) -> str:
    """The engine line of a verdict's bounds: :data:`ENGINE_NOTE` for SQLite, else the PostgreSQL server's
    version and collation (from the worker's ``engine`` result) and how it differs from SQLite."""
    eng = res.get("engine")
    if not isinstance(eng, dict):
        return ENGINE_NOTE
    return (f"engine: PostgreSQL {eng.get('version')} (a throw-away database per run, a schema per example, "
            f"dropped after); no type affinity (a value must fit its column's type, else the content is "
            f"refused), NULLs sort last ascending, text collation {eng.get('collation')!r}, rows in primary-key "
            "order (physical order without one); SQLite may differ")


def _engine_name(opts: Settings) -> str:
    return "PostgreSQL" if opts.database_url else "SQLite"


def _request(ob: Obligation, harness: Harness, hdir: Path, target: Target, opts: Settings,
             content: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"paths": [str(hdir), *target.paths], "harness": harness.module, "function": ob.function,
            "target_module": target.module, "migrate": "migrate",
            "schema": Path(ob.reason).read_text(encoding="utf-8"), "bounds": DB_BOUNDS,
            "storage_dir": _storage_dir(opts), "content": content, "same": not ob.params}


class _NoServer(Exception):
    """The PostgreSQL server could not give a throw-away database (the message says why)."""


def _run(request: dict[str, Any], opts: Settings) -> WorkerOutcome:
    """Run the worker; on PostgreSQL inside a throw-away role and database (raises :class:`_NoServer`)."""
    cpu = max(30.0, 4 * opts.budget_s + 20)
    limits = Limits(cpu_s=cpu, wall_s=wall_limit(cpu, 10), memory_bytes=opts.memory_bytes)
    if not opts.database_url:
        return run_worker("database", request, limits)
    from evalgap.verifier.engines.dbserver import Scratch, ScratchError, parse_url

    try:
        with Scratch(parse_url(opts.database_url), statement_timeout_s=limits.wall_s) as scratch:
            return run_worker("database", {**request, "postgres": scratch.params()}, limits)
    except (ScratchError, ValueError) as exc:
        raise _NoServer(str(exc)) from None


def replay_content(ob: Obligation, harness: Harness, hdir: Path, target: Target, opts: Settings,
                   content: dict[str, list[str]]) -> dict[str, Any]:
    """Replay one table content (table -> rows as Python source) on a fresh database in a new worker.

    Returns:
        The worker's result: ``outcome`` ``failed`` (the failure reproduced) or ``passed``, or a worker
        status (``timeout``, ``crashed``...) under ``outcome`` when it produced no result.
    """
    try:
        out = _run(_request(ob, harness, hdir, target, opts, content), opts)
    except _NoServer as exc:
        return {"outcome": "error", "stage": "engine", "message": str(exc)}
    return out.result if out.result is not None else {"outcome": out.status}


def _bounds(res: dict[str, Any]) -> tuple[str, ...]:
    return (f"rows: every content of at most {DB_BOUNDS['rows']} rows in all over a few values per column "
            f"({res.get('exhaustive', 0)} contents, {res.get('rejected', 0)} refused by the schema's own "
            "constraints)",
            f"random: {res.get('random', 0)} contents of up to {DB_BOUNDS['random_rows']} rows per table drawn "
            "by Hypothesis (derandomized)", engine_note(res))


def run_database(job: EngineJob) -> EngineVerdict:
    """The ``database`` verdict on ``job``'s requirement (never raises for what the target does)."""
    start = time.monotonic()
    ob = job.ob
    if ob.kind != "database":
        return EngineVerdict("database", Verdict.UNKNOWN, "unsupported: the database engine checks the "
                             "requirements of a `database` block only")
    try:
        request = _request(ob, job.harness, job.hdir, job.target, job.opts)
    except OSError as exc:
        return EngineVerdict("database", Verdict.UNKNOWN, f"spec error: the schema file cannot be read ({exc})")
    try:
        out = _run(request, job.opts)
    except _NoServer as exc:
        return EngineVerdict("database", Verdict.UNKNOWN, f"engine error: {exc}", elapsed_s=time.monotonic() - start)
    res = out.result or {}
    budget = Budget(examples=int(res.get("exhaustive", 0)) + int(res.get("random", 0)),
                    rejected=int(res.get("rejected", 0)) or None)
    failed = worker_failure(out, budget, time.monotonic() - start, engine="database", cpu_limit_s=60)
    if failed is not None:
        return failed
    outcome, elapsed = res.get("outcome"), time.monotonic() - start
    if res.get("blocked"):
        return EngineVerdict("database", Verdict.UNKNOWN, f"blocked side effect: the migration attempted "
                             f"{res['blocked'][0]}; the sandbox blocked it", budget, elapsed_s=elapsed)
    if outcome == "error":
        stage = res.get("stage")
        kind = {"import": "import error", "schema": "spec error"}.get(str(stage), "engine error")
        return EngineVerdict("database", Verdict.UNKNOWN, f"{kind}: {res.get('message')}", budget, elapsed_s=elapsed)
    if outcome == "spec-error":
        return EngineVerdict("database", Verdict.UNKNOWN, f"spec error: a rule raised {res.get('message')} on "
                             f"{res.get('before')}", budget, elapsed_s=elapsed)
    if outcome == "passed":
        return EngineVerdict("database", Verdict.NO_COUNTEREXAMPLE, f"no counterexample in {budget.examples} "
                             f"table contents, each migrated on a fresh {_engine_name(job.opts)} database (bounded "
                             "search, not a proof)", budget, elapsed_s=elapsed, bounds=_bounds(res))
    if outcome != "failed":
        return EngineVerdict("database", Verdict.UNKNOWN, f"engine error: unexpected worker outcome {outcome!r}",
                             budget, elapsed_s=elapsed)
    content = {str(t): [str(r) for r in rows] for t, rows in res.get("content", {}).items()}
    again = replay_content(ob, job.harness, job.hdir, job.target, job.opts, content)
    if again.get("outcome") != "failed" or again.get("status") != res.get("status"):
        return EngineVerdict("database", Verdict.UNKNOWN, f"not reproduced: the failing table contents passed "
                             f"when migrated again on a fresh database ({again.get('outcome')})", budget,
                             elapsed_s=time.monotonic() - start)
    status, idx = res.get("status"), int(res.get("index", 0))
    if status == "failed":
        what = f"{check_text(ob, idx - 1, job.source)} does not hold"
        if not ob.params:  # `same rows`: the message names both row lists (dbsame)
            what += f": {res.get('message')}"
    elif status == "raised":
        what = f"the migration raised {res.get('message')}" if ob.params else f"the target's {res.get('message')}"
    else:
        what = str(res.get("message"))
    sql = "\n".join(f"    {s}" for s in res.get("sql", [])) or "    -- (empty tables)"
    shown = "; ".join(f"{t}: [{', '.join(rows)}]" for t, rows in content.items())
    reason = (f"{what} (replayed on a fresh {_engine_name(job.opts)} database). Reproduce: the schema "
              f"{Path(ob.reason).name}, then\n{sql}\n  then {job.target.module}.migrate(conn)"
              f"{'' if ob.params else ' and the steps above, on each database'}.\n"
              f"  before: {res.get('before')}\n  after: {res.get('after') or '(not reached)'}")
    rows_sql = [str(s) for s in res.get("sql", [])]
    return EngineVerdict("database", Verdict.REFUTED, reason, budget, f"{ob.req_id} on tables {shown}",
                         tuple(content_args(content)), time.monotonic() - start,
                         reproducer=_reproducer(ob, job.target, rows_sql, job.opts.database_url) if ob.params
                         else same_reproducer(ob, job.target, str(job.hdir), job.harness.module, rows_sql))


def _reproducer(ob: Obligation, target: Target, sql: list[str], url: str | None = None) -> str:
    """Standalone Python: the schema, the rows, the target's migration, then the tables printed (on PostgreSQL:
    in a new schema of the database ``url`` names, through the engine's connection wrapper)."""
    if url:
        from evalgap.verifier.engines.dbserver import parse_url

        shown = parse_url(url).shown
        pg = ["import sys", "", f"sys.path[:0] = {list(target.paths)!r}", f"import {target.module}",
              "from evalgap.verifier.engines import dbpg, dbserver",
              "", f"url = dbserver.parse_url({shown!r})  # add the password if the server asks for one",
              "raw = dbpg.open_connection({'user': url.user, 'password': url.password, 'database': url.database, "
              "'host': url.host, 'port': url.port, 'unix_sock': url.unix_sock})",
              "raw.execute_simple('CREATE SCHEMA evalgap_replay; SET search_path TO evalgap_replay')",
              f"raw.execute_simple(open({ob.reason!r}, encoding='utf-8').read())"]
        pg += [f"raw.execute_simple({s!r})" for s in sql]
        pg += [f"{target.module}.migrate(dbpg.PgConnection(raw))",
               "for (name,) in raw.execute_simple(\"SELECT tablename FROM pg_tables WHERE schemaname = "
               "'evalgap_replay'\").rows:",
               "    print(name, raw.execute_simple(f'SELECT * FROM \"{name}\"').rows)",
               "raw.execute_simple('DROP SCHEMA evalgap_replay CASCADE')"]
        return "\n".join(pg) + "\n"
    lines = ["import sqlite3", "import sys", "", f"sys.path[:0] = {list(target.paths)!r}",
             f"import {target.module}", "", 'conn = sqlite3.connect(":memory:", isolation_level=None)',
             f"conn.executescript(open({ob.reason!r}, encoding='utf-8').read())"]
    lines += [f"conn.execute({s!r})" for s in sql]
    lines += [f"{target.module}.migrate(conn)",
              "for (name,) in conn.execute(\"SELECT name FROM sqlite_master WHERE type = 'table'\").fetchall():",
              "    print(name, conn.execute(f'SELECT * FROM \"{name}\"').fetchall())"]
    return "\n".join(lines) + "\n"


def content_args(content: dict[str, list[str]]) -> list[tuple[str, str]]:
    """A table content as a verdict's ``args``: (table, ``[row, ...]`` as Python source)."""
    return [(t, "[" + ", ".join(rows) + "]") for t, rows in content.items()]


class DatabaseEngine:
    """The ``database`` engine of the registry: not chosen with ``--engines``; runs every requirement of a
    ``database`` block."""

    name = "database"
    selectable = False
    worker = "database"

    def budget(self, opts: Settings) -> dict[str, Any]:
        """What of ``opts`` changes this engine's verdict (part of the cache key)."""
        url = opts.database_url
        if url:
            from evalgap.verifier.engines.dbserver import parse_url

            try:
                url = parse_url(url).shown
            except ValueError:
                pass
        return {"bounds": DB_BOUNDS, "memory": opts.memory_bytes, "database": url or "sqlite"}

    def run(self, job: EngineJob) -> EngineVerdict:
        """The database verdict (never raises for what the target does)."""
        return run_database(job)
