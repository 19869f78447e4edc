"""The ``database`` engine: requirements over tables before and after a migration that runs for real on SQLite.

The generator and the SQL helpers (:mod:`evalgap.verifier.engines.dbtables`) are tested in-process on trusted
schemas; migrations (target code) run only in the sandboxed worker, through ``evalgap check``: plain SQL,
a SQLAlchemy Core migration, one that tries ``ATTACH DATABASE``. PostgreSQL is not implemented (docs/database.md).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any, Iterator

import pytest

from evalgap.specs_lang import parse
from evalgap.specs_lang.format import format_spec
from evalgap.verifier.engines import dbtables

import pg_server as pg_server_mod
from egtest import run_cli

CASE = Path(__file__).resolve().parents[1] / "case_studies" / "schema_migration"

V1 = "CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT NOT NULL, note TEXT);\n"


def test_schema_reading_and_the_exhaustive_order() -> None:
    (t,) = dbtables.read_schema(V1)
    assert (t.name, t.rowid_pk, [c.name for c in t.generated]) == ("accounts", "id", ["email", "note"])
    assert dbtables.domain(t.generated[0]) == ("", "Ada", "Ada Lovelace")  # NOT NULL: no None
    assert dbtables.domain(t.generated[1])[-1] is None
    contents = list(dbtables.exhaustive([t], 2, 10_000))
    assert contents[0] == {"accounts": []} and len(contents) == 1 + 12 + 12 * 12
    assert [len(c["accounts"]) for c in contents] == sorted(len(c["accounts"]) for c in contents)
    assert dbtables.insert_sql([t], {"accounts": [("it's", None)]}) == [
        "INSERT INTO \"accounts\" (id, email, note) VALUES (1, 'it''s', NULL);"]
    assert dbtables.affinity("VARCHAR(20)") == "TEXT" and dbtables.affinity("BIGINT") == "INTEGER"


def test_run_example_reports_rejections_and_failures() -> None:
    tables = dbtables.read_schema(V1)

    def drop_empty(conn: object) -> None:
        conn.execute("DELETE FROM accounts WHERE email = ''")  # type: ignore[attr-defined]

    def same_count(before: dbtables.Tables, after: dbtables.Tables) -> int:
        return 0 if len(after.accounts) == len(before.accounts) else 1

    ok = dbtables.run_example(V1, tables, {"accounts": [("a@b", None)]}, drop_empty, same_count)
    bad = dbtables.run_example(V1, tables, {"accounts": [("", "x")]}, drop_empty, same_count)
    refused = dbtables.run_example(V1, tables, {"accounts": [(None, "x")]}, drop_empty, same_count)
    assert (ok.status, bad.status, bad.index, refused.status) == ("ok", "failed", 1, "rejected")
    assert bad.before is not None and bad.before.accounts[0].email == "" and bad.after is not None
    assert bad.after.show() == "accounts: []"
    with pytest.raises(dbtables.MissingTable, match="no table 'users' after"):
        getattr(bad.after, "users")


_SPEC = '''\
spec accounts "a"
  target: {target}

database accounts "Accounts v1 to v2" schema: "v1.sql"
  requirement ACC-1 "Every account is kept."
    len(after.accounts) == len(before.accounts)
  requirement ACC-2 "Emails are lower-cased."
    forall r in before.accounts: forall s in after.accounts: s.id == r.id ==> s.email == r.email.lower()
'''

_SQLALCHEMY = '''\
"""A migration written with SQLAlchemy Core on the connection it is given."""
import sqlalchemy as sa


def migrate(conn):
    engine = sa.create_engine("sqlite://", creator=lambda: conn, poolclass=sa.pool.StaticPool)
    meta = sa.MetaData()
    old = sa.Table("accounts", meta, autoload_with=engine)
    new = sa.Table("accounts_v2", meta, sa.Column("id", sa.Integer, primary_key=True),
                   sa.Column("email", sa.Text, nullable=False))
    with engine.begin() as c:
        new.create(c)
        query = sa.select(old.c.id, sa.func.lower(old.c.email)){where}
        c.execute(new.insert().from_select(["id", "email"], query))
        c.execute(sa.text("DROP TABLE accounts"))
        c.execute(sa.text("ALTER TABLE accounts_v2 RENAME TO accounts"))
'''


def _project(tmp_path: Path, target: str, code: str) -> Path:
    (tmp_path / "v1.sql").write_text(V1, encoding="utf-8")
    (tmp_path / target).write_text(code, encoding="utf-8")
    (tmp_path / "acc.req").write_text(_SPEC.format(target=target), encoding="utf-8")
    return tmp_path / "acc.req"


def _check(spec: Path) -> tuple[int, dict[str, dict[str, object]]]:
    res = run_cli("check", str(spec), "--format", "json", "--no-cache", "--budget", "2")
    assert res.exit_code in (0, 1, 3), res.stdout + res.stderr
    return res.exit_code, {r["id"]: r for r in res.json()["requirements"]}


def test_spec_block_parses_and_formats() -> None:
    text = _SPEC.format(target="m.py")
    spec = parse(text, "acc.req")
    (db,) = spec.databases
    assert (db.name, db.title, db.schema_file, [r.id for r in db.requirements]) == (
        "accounts", "Accounts v1 to v2", "v1.sql", ["ACC-1", "ACC-2"])
    assert format_spec(spec, text) == text


def test_database_block_diagnostics(tmp_path: Path) -> None:
    from evalgap.specs_lang.check import structure_diagnostics
    from evalgap.specs_lang.diagnostics import DATABASE_CLAUSE, DATABASE_SCHEMA

    text = _SPEC.format(target="m.py").replace("    len(after.accounts)", "    ensures len(after.accounts)")
    (tmp_path / "acc.req").write_text(text, encoding="utf-8")
    codes = [d.code for d in structure_diagnostics(parse(text, str(tmp_path / "acc.req")))]
    assert sorted(codes) == [DATABASE_SCHEMA, DATABASE_CLAUSE] or sorted(codes) == sorted([DATABASE_SCHEMA,
                                                                                           DATABASE_CLAUSE])
    (tmp_path / "v1.sql").write_text(V1, encoding="utf-8")
    assert [d.code for d in structure_diagnostics(parse(text, str(tmp_path / "acc.req")))] == [DATABASE_CLAUSE]


@pytest.mark.slow
def test_sqlalchemy_core_migration_refuted_then_fixed(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    buggy = _project(tmp_path, "mig.py", _SQLALCHEMY.format(where=".where(old.c.email.like('%@%'))"))
    code, rs = _check(buggy)
    assert code == 1 and rs["ACC-1"]["verdict"] == "refuted", rs["ACC-1"]
    v = rs["ACC-1"]["verdicts"][0]  # type: ignore[index]
    assert v["engine"] == "database" and v["counterexample"] == "ACC-1 on tables accounts: [('', '')]"
    assert "INSERT INTO \"accounts\" (id, email, note) VALUES (1, '', '');" in v["reason"]
    assert rs["ACC-2"]["verdict"] == "no-counterexample"
    fixed = _project(tmp_path, "mig.py", _SQLALCHEMY.format(where=""))
    code, rs = _check(fixed)
    assert rs["ACC-1"]["verdict"] == "no-counterexample"
    assert any("engine: SQLite" in b for b in list(rs["ACC-1"]["bounds"]))  # type: ignore[call-overload]
    # an engine difference, found by the random phase: SQLite's lower() folds ASCII letters only
    assert code == 1 and rs["ACC-2"]["verdict"] == "refuted"
    shown = str(rs["ACC-2"]["counterexample"])
    assert shown.startswith("ACC-2 on tables accounts: [(") and not shown.isascii(), shown


@pytest.mark.adversarial
def test_attach_from_a_migration_is_refused_and_not_a_verdict(tmp_path: Path) -> None:
    outside = Path(os.environ.get("TMPDIR", "/tmp")) / f"evalgap-attach-{os.getpid()}.db"
    code = textwrap.dedent(f'''\
        def migrate(conn):
            conn.execute("ATTACH DATABASE '{outside}' AS loot")
            conn.execute("CREATE TABLE loot.t (x)")
        ''')
    _, rs = _check(_project(tmp_path, "mig.py", code))
    assert rs["ACC-1"]["verdict"] == "unknown"
    assert str(rs["ACC-1"]["verdicts"][0]["reason"]).startswith("blocked side effect")  # type: ignore[index]
    assert "ATTACH" in str(rs["ACC-1"]["verdicts"][0]["reason"])  # type: ignore[index]
    assert not outside.exists()


def test_schema_migration_case_refutes_the_agent_with_one_row() -> None:
    from egtest import CASES

    res = run_cli("check", str(CASES / "schema_migration"), "--format", "json", "--no-cache", "--budget", "2")
    assert res.exit_code == 1, res.stdout + res.stderr
    rs = {r["id"]: r for r in res.json()["requirements"]}
    assert rs["MIG-1"]["counterexample"] == "MIG-1 on tables users: [('', 0, '')]"
    assert [rs[k]["verdict"] for k in ("MIG-2", "MIG-3", "MIG-4", "MIG-5")] == ["no-counterexample"] * 4
    assert "after: users: []" in rs["MIG-1"]["verdicts"][0]["reason"]


@pytest.mark.skipif(not os.environ.get("EVALGAP_POSTGRES_URL"), reason="PostgreSQL is not implemented yet: the "
                    "database engine runs SQLite only (docs/database.md); set EVALGAP_POSTGRES_URL once it is")
def test_postgresql_backend() -> None:
    pytest.fail("a PostgreSQL URL was given, but the database engine has no PostgreSQL backend yet")


@pytest.fixture(scope="module")
def pg_server() -> Iterator[pg_server_mod.PgServer]:
    """A throw-away PostgreSQL server (unix socket in a temp folder), skipped with the reason when none can start."""
    reason = pg_server_mod.skip_reason()
    if reason:
        pytest.skip(reason)
    pytest.importorskip("pg8000", reason="pg8000 (the test extra's PostgreSQL driver) is not installed")
    server = pg_server_mod.start()
    try:
        yield server
    finally:
        server.stop()


def test_throwaway_postgresql_server_runs_the_case_migrations(pg_server: pg_server_mod.PgServer) -> None:
    """The fixture's server: a throw-away database (CREATE/DROP DATABASE) takes the case's v1 schema and rows
    over a unix socket. Infrastructure for the PostgreSQL backend, which is not built yet (docs/database.md)."""
    admin: Any = pg_server.connect()
    admin.autocommit = True
    admin.cursor().execute("CREATE DATABASE eg_example_1")
    try:
        conn: Any = pg_server.connect("eg_example_1")
        cur = conn.cursor()
        cur.execute((CASE / "migrations" / "0001_users_v1.sql").read_text(encoding="utf-8"))
        cur.execute("INSERT INTO users (id, name, height_cm, country) VALUES (1, '', 170, ''), (2, 'Ada L', 1, 'GB')")
        cur.execute("SELECT count(*) FROM users")
        assert cur.fetchone()[0] == 2
        cur.execute("SELECT version()")
        assert "PostgreSQL" in cur.fetchone()[0]
        conn.rollback()
        conn.close()
    finally:
        admin.cursor().execute("DROP DATABASE eg_example_1")
        admin.close()
