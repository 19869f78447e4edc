"""Differential database requirements (``same rows``, docs/database.md): the spec side (parse, format,
EG244/EG245, the harness plan) in-process, the runner of both databases (:mod:`evalgap.verifier.engines.dbsame`)
in-process on trusted functions, and the denormalised_orders case through ``evalgap check`` (the target's
code runs only in the sandboxed worker there).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, cast

import pytest

from evalgap.specs_lang import ast as A
from evalgap.specs_lang import parse
from evalgap.specs_lang.check import structure_diagnostics
from evalgap.specs_lang.diagnostics import DATABASE_SAME, DATABASE_SQL
from evalgap.specs_lang.format import format_spec
from evalgap.translators import build_harness
from evalgap.verifier.engines import dbsame, dbtables

from egtest import CASES, run_cli

CASE = CASES / "denormalised_orders"
DDL = (CASE / "migrations" / "0001_shop.sql").read_text(encoding="utf-8")
QUERY = "SELECT o.id, c.name, o.total FROM orders o JOIN customers c ON c.id = o.customer_id"

_SPEC = '''\
spec shop "s"
  target: m.py

database shop "Shop" schema: "0001_shop.sql"
  requirement DEN-1 "Same order list after a rename."
    same rows order_list(): "{query}"
      after rename_customer(1, "Grace Hopper"): "{step}"
'''


def _spec(tmp_path: Path, query: str = QUERY, step: str = "UPDATE customers SET name = ?2 WHERE id = ?1",
          extra: str = "") -> Path:
    (tmp_path / "0001_shop.sql").write_text(DDL, encoding="utf-8")
    path = tmp_path / "shop.req"
    path.write_text(_SPEC.format(query=query, step=step) + extra, encoding="utf-8")
    return path


def test_same_rows_parses_formats_and_lints_clean(tmp_path: Path) -> None:
    path = _spec(tmp_path)
    text = path.read_text(encoding="utf-8")
    spec = parse(text, str(path))
    (clause,) = spec.databases[0].requirements[0].clauses
    assert (clause.query.name, clause.query.args, clause.query.sql) == ("order_list", (), QUERY)  # type: ignore[union-attr]
    (step,) = clause.steps  # type: ignore[union-attr]
    values = [a.value for a in step.args if isinstance(a, A.Const)]
    assert (step.name, values, step.sql) == ("rename_customer", [1, "Grace Hopper"],
                                             "UPDATE customers SET name = ?2 WHERE id = ?1")
    assert format_spec(spec, text) == text
    assert structure_diagnostics(spec) == []


@pytest.mark.parametrize(("query", "step", "needle"), [
    ("SELECT o.id, c.nmae FROM orders o JOIN customers c ON c.id = o.customer_id", None, "no such column: c.nmae"),
    (QUERY, "UPDATE customers SET name = ?3 WHERE id = ?1", "rename_customer"),
    (QUERY, "UPDATE clients SET name = ?2 WHERE id = ?1", "no such table: clients"),
])
def test_reference_sql_is_compiled_on_the_schema(tmp_path: Path, query: str, step: str | None, needle: str) -> None:
    path = _spec(tmp_path, query, step or "UPDATE customers SET name = ?2 WHERE id = ?1")
    diags = structure_diagnostics(parse(path.read_text(encoding="utf-8"), str(path)))
    assert [d.code for d in diags] == [DATABASE_SQL], diags
    assert needle in diags[0].message and diags[0].span.line in (6, 7)


def test_same_rows_placement(tmp_path: Path) -> None:
    mixed = _spec(tmp_path, extra="    len(after.orders) == len(before.orders)\n")
    diags = structure_diagnostics(parse(mixed.read_text(encoding="utf-8"), str(mixed)))
    assert [d.code for d in diags] == [DATABASE_SAME] and "only clause" in diags[0].message
    top = 'spec s "s"\nrequirement R-1 "x"\n  same rows q(): "SELECT 1"\n'
    diags = structure_diagnostics(parse(top, "<text>"))
    assert [d.code for d in diags] == [DATABASE_SAME] and "belongs in a `database` block" in diags[0].message


def test_the_harness_emits_the_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _spec(tmp_path)
    (tmp_path / "m.py").write_text("", encoding="utf-8")  # the harness imports its target module
    monkeypatch.syspath_prepend(str(tmp_path))
    harness = build_harness(parse(path.read_text(encoding="utf-8"), str(path)), "m", "h_same")
    ob = harness.obligation("DEN-1")
    assert (ob.kind, ob.params, ob.target_function, ob.explore) == ("database", (), "order_list", "database")
    assert ob.reason == str((tmp_path / "0001_shop.sql").resolve())
    namespace: dict[str, Any] = {}
    exec(compile(harness.source, "h_same.py", "exec"), namespace)  # noqa: S102 - our own generated harness
    plan = namespace[ob.function]()  # type: ignore[index]
    assert plan == {"query": ("order_list", (), QUERY),
                    "steps": [("rename_customer", (1, "Grace Hopper"), "UPDATE customers SET name = ?2 WHERE id = ?1")]}


class _Stale:
    """A copied name nothing keeps in sync (the agent's mistake), as trusted in-process functions."""

    @staticmethod
    def migrate(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE orders ADD COLUMN customer_name TEXT")
        conn.execute("UPDATE orders SET customer_name = (SELECT name FROM customers WHERE id = customer_id)")

    @staticmethod
    def rename_customer(conn: sqlite3.Connection, cid: int, name: str) -> None:
        conn.execute("UPDATE customers SET name = ? WHERE id = ?", (name, cid))

    @staticmethod
    def order_list(conn: sqlite3.Connection) -> list[Any]:
        return conn.execute("SELECT id, customer_name, total FROM orders").fetchall()


class _Synced(_Stale):
    @staticmethod
    def rename_customer(conn: sqlite3.Connection, cid: int, name: str) -> None:
        conn.execute("UPDATE customers SET name = ? WHERE id = ?", (name, cid))
        conn.execute("UPDATE orders SET customer_name = ? WHERE customer_id = ?", (name, cid))


PLAN = {"query": ("order_list", (), QUERY),
        "steps": [("rename_customer", (1, "Grace Hopper"), "UPDATE customers SET name = ?2 WHERE id = ?1")]}


def test_run_same_finds_the_stale_copy_and_passes_the_synced_one() -> None:
    tables = dbtables.read_schema(DDL)
    content: dict[str, list[tuple[Any, ...]]] = {"customers": [("Ada",)], "orders": [(1, 7), (1, 8)]}
    bad = dbsame.run_same(DDL, tables, content, _Stale, _Stale.migrate, PLAN)
    assert (bad.status, bad.index) == ("failed", 1)
    assert "[(1, 'Grace Hopper', 7), (2, 'Grace Hopper', 8)]" in bad.message
    assert "gives [(1, 'Ada', 7), (2, 'Ada', 8)]" in bad.message
    assert bad.after is not None and bad.after.customers[0].name == "Grace Hopper"
    good = dbsame.run_same(DDL, tables, content, _Synced, _Synced.migrate, PLAN)
    assert good.status == "ok"
    # row order is not compared
    rev: Any = type("Rev", (_Synced,), {"order_list": staticmethod(lambda c: _Synced.order_list(c)[::-1])})
    assert dbsame.run_same(DDL, tables, content, rev, rev.migrate, PLAN).status == "ok"


def test_run_same_refusals_errors_and_raising_targets() -> None:
    tables = dbtables.read_schema(DDL)
    insert = {"query": PLAN["query"], "steps": [("place_order", (7, 1, 5), "INSERT INTO orders VALUES (?1, ?2, ?3)")]}
    empty: dict[str, list[tuple[Any, ...]]] = {"customers": [], "orders": []}
    # the reference step breaks a foreign key on this content: outside the step's domain, refused
    assert dbsame.run_same(DDL, tables, empty, _Synced, _Synced.migrate, insert).status == "rejected"
    broken = {"query": ("order_list", (), "SELECT nope FROM orders"), "steps": []}
    err = dbsame.run_same(DDL, tables, empty, _Synced, _Synced.migrate, broken)
    assert err.status == "error" and "no such column: nope" in err.message

    class Raises(_Synced):
        @staticmethod
        def rename_customer(conn: sqlite3.Connection, cid: int, name: str) -> None:
            raise RuntimeError("read-only replica")

    out = dbsame.run_same(DDL, tables, {"customers": [("Ada",)], "orders": []}, Raises, Raises.migrate, PLAN)
    assert out.status == "raised" and out.message == "rename_customer(conn, ...) raised RuntimeError: read-only replica"


def _check(impl: str) -> tuple[int, dict[str, Any]]:
    res = run_cli("check", str(CASE), "--target", impl, "--format", "json", "--no-cache", "--budget", "2")
    assert res.exit_code in (0, 1), res.stdout + res.stderr
    return res.exit_code, {r["id"]: r for r in res.json()["requirements"]}


@pytest.mark.slow
def test_denormalised_orders_agent_refuted_with_two_rows_and_a_reproducer(tmp_path: Path) -> None:
    import subprocess
    import sys

    code, rs = _check("agent")
    assert code == 1 and rs["DEN-1"]["verdict"] == "refuted"
    assert rs["DEN-1"]["counterexample"] == "DEN-1 on tables customers: [('',)]; orders: [(1, 0)]"
    v = rs["DEN-1"]["verdicts"][0]
    assert "the reference SQL gives [(1, 'Grace Hopper', 0)], the target's order_list(conn) gives [(1, '', 0)]" in v["reason"]
    assert "agent_shop.rename_customer(conn, 1, 'Grace Hopper')" in v["reason"]
    assert [rs[k]["verdict"] for k in ("DEN-2", "DEN-3")] == ["no-counterexample"] * 2
    assert any("refused" in b for b in rs["DEN-2"]["bounds"])
    # the verdict's reproducer needs the harness the check wrote; rebuild it beside the script
    from evalgap.specs_lang import parse_file

    harness = build_harness(parse_file(CASE / "shop.req"), "agent_shop", "h_den")
    (tmp_path / "h_den.py").write_text(harness.source, encoding="utf-8")
    script = dbsame.reproducer(harness.obligation("DEN-1"), cast(Any, _Target(str(CASE))), str(tmp_path), "h_den",
                               ["INSERT INTO \"customers\" (id, name) VALUES (1, '');",
                                "INSERT INTO \"orders\" (id, customer_id, total) VALUES (1, 1, 0);"])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == ["reference: [(1, 'Grace Hopper', 0)]", "target: [(1, '', 0)]"], out.stderr


class _Target:
    module = "agent_shop"

    def __init__(self, path: str) -> None:
        self.paths = (path,)


@pytest.mark.slow
@pytest.mark.parametrize("impl", ["reference", "view"])
def test_denormalised_orders_trigger_and_view_not_refuted(impl: str) -> None:
    code, rs = _check(impl)
    assert code == 0
    assert [rs[k]["verdict"] for k in ("DEN-1", "DEN-2", "DEN-3")] == ["no-counterexample"] * 3
    assert rs["DEN-1"]["verdicts"][0]["budget"]["examples"] > 100
