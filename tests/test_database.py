"""The ``database`` engine: requirements over tables before and after a migration that runs for real on SQLite,
and on PostgreSQL (a throw-away server from tests/pg_server.py; skipped with the reason without its binaries,
except under CI=true).

The generator and the SQL helpers (:mod:`evalgap.verifier.engines.dbtables`) are tested in-process on trusted
schemas; migrations (target code) run only in the sandboxed worker, through ``evalgap check``: plain SQL,
a SQLAlchemy Core migration, one that tries ``ATTACH DATABASE``, ones that try to reach the PostgreSQL server
on their own or drop another database (docs/database.md).
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


def test_postgresql_urls_are_read_and_shown_without_the_password() -> None:
    from evalgap.verifier.engines.dbserver import parse_url

    u = parse_url("postgresql://ada:s3cret@db.example:6543/prod")
    assert (u.user, u.password, u.host, u.port, u.database, u.unix_sock) == ("ada", "s3cret", "db.example", 6543,
                                                                              "prod", None)
    assert u.shown == "postgresql://ada@db.example:6543/prod" and "s3cret" not in u.shown
    s = parse_url("postgresql://postgres@/postgres?host=/tmp/pg&port=54329")
    assert (s.unix_sock, s.host, s.database) == ("/tmp/pg/.s.PGSQL.54329", None, "postgres")
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        parse_url("mysql://x@y/z")
    with pytest.raises(ValueError, match="sslmode"):
        parse_url("postgresql://x@y/z?sslmode=require")


def test_database_url_layers_and_bad_urls(tmp_path: Path) -> None:
    from evalgap.verifier.errors import UsageError
    from evalgap.verifier.options import resolve_settings

    (tmp_path / "pyproject.toml").write_text('[tool.evalgap]\ndatabase_url = "postgresql://a@h/db"\n', encoding="utf-8")
    assert resolve_settings({}, tmp_path, env={}).database_url == "postgresql://a@h/db"
    env = {"EVALGAP_POSTGRES_URL": "postgresql://b@h/db"}
    got = resolve_settings({}, tmp_path, env=env)
    assert (got.database_url, got.sources["database_url"]) == ("postgresql://b@h/db", "EVALGAP_POSTGRES_URL")
    cli = resolve_settings({"database_url": "postgresql://c@h/db"}, tmp_path, env=env)
    assert cli.database_url == "postgresql://c@h/db"
    with pytest.raises(UsageError, match=r"database_url \(from command line\): not a PostgreSQL URL"):
        resolve_settings({"database_url": "sqlite:///x.db"}, tmp_path, env={})


@pytest.fixture(scope="module")
def pg_server() -> Iterator[pg_server_mod.PgServer]:
    """A throw-away PostgreSQL server (unix socket in a temp folder); skipped with the reason when none can start,
    except under CI (``CI=true``), where .ci/run installs Debian's postgresql package and the tests must run."""
    reason = pg_server_mod.skip_reason()
    try:
        import pg8000  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        reason = reason or "pg8000 (the test extra's PostgreSQL driver) is not installed"
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but no PostgreSQL server can start: {reason} (.ci/run installs postgresql)")
        pytest.skip(reason)
    server = pg_server_mod.start()
    try:
        yield server
    finally:
        server.stop()


def _leftovers(server: pg_server_mod.PgServer) -> list[str]:
    """The throw-away databases and roles of the engine still on ``server`` (none once a check is over)."""
    admin: Any = server.connect()
    try:
        cur = admin.cursor()
        cur.execute("SELECT datname FROM pg_database WHERE datname LIKE 'evalgap_%' UNION ALL "
                    "SELECT rolname FROM pg_roles WHERE rolname LIKE 'evalgap_%'")
        return [str(r[0]) for r in cur.fetchall()]
    finally:
        admin.close()


def test_postgresql_backend_examples_in_throwaway_schemas(pg_server: pg_server_mod.PgServer) -> None:
    """In-process, on a throw-away role and database: a schema per example, refusals by the server's types and
    constraints, PostgreSQL's kinds (boolean), and nothing an example made survives into the next."""
    from evalgap.verifier.engines import dbpg
    from evalgap.verifier.engines.dbserver import Scratch, parse_url

    ddl = "CREATE TABLE flags (id INTEGER PRIMARY KEY, on_ BOOLEAN NOT NULL, label VARCHAR(4));"
    with Scratch(parse_url(pg_server.url)) as scratch:
        raw = dbpg.open_connection(scratch.params())
        try:
            backend = dbpg.PgBackend(raw)
            (t,) = dbtables.read_schema(ddl, backend)
            assert [(c.name, c.type, c.value_kind) for c in t.columns] == [
                ("id", "integer", "INTEGER"), ("on_", "boolean", "BOOLEAN"), ("label", "character varying(4)", "TEXT")]
            assert (t.rowid_pk, dbtables.domain(t.columns[1])) == ("id", (False, True))

            def litter(conn: Any) -> None:  # a table in the example's schema, another schema, a temporary table
                conn.execute("CREATE TABLE extra (x integer)")
                conn.execute("CREATE SCHEMA stray; CREATE TABLE stray.t (x integer)")
                conn.executescript("CREATE TEMP TABLE tmp (x integer); DELETE FROM flags WHERE label = ?;")

            def delete_param(conn: Any) -> None:
                assert conn.execute("SELECT count(*) FROM flags WHERE label = ?", ("Ada",)).fetchone()[0] == 1
                conn.execute("DELETE FROM flags WHERE label = :l", {"l": "Ada"})

            def kept(before: dbtables.Tables, after: dbtables.Tables) -> int:
                return 0 if len(after.flags) == len(before.flags) else 1

            ok = dbtables.run_example(ddl, [t], {"flags": [(True, "x")]}, lambda c: None, kept, backend)
            bad = dbtables.run_example(ddl, [t], {"flags": [(False, "Ada"), (True, None)]}, delete_param, kept, backend)
            too_long = dbtables.run_example(ddl, [t], {"flags": [(True, "Ada Lovelace")]}, lambda c: None, kept, backend)
            raised = dbtables.run_example(ddl, [t], {"flags": []}, litter, kept, backend)
            public = dbtables.run_example(ddl, [t], {"flags": []}, lambda c: c.execute("CREATE TABLE public.x (y int)"),
                                          kept, backend)
            assert "permission denied for schema public" in public.message  # the role inherits nothing (NOINHERIT)
            assert (ok.status, bad.status, bad.index, too_long.status) == ("ok", "failed", 1, "rejected")
            assert "too long" in too_long.message
            assert bad.before is not None and bad.before.show() == "flags: [(1, False, 'Ada'), (2, True, None)]"
            assert bad.after is not None and bad.after.show() == "flags: [(2, True, None)]"
            assert raised.status == "raised" and "syntax" in raised.message.lower(), raised.message  # `?` in a script
            again = dbtables.run_example(ddl, [t], {"flags": []}, lambda c: None,
                                         lambda b, a: 0 if "extra" not in a.show() else 1, backend)
            assert again.status == "ok" and again.after is not None and again.after.show() == "flags: []"
            cur = raw.cursor()
            cur.execute("SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner "
                        "WHERE r.rolname = current_user")
            assert cur.fetchone()[0] == 0  # DROP OWNED BY CURRENT_USER after every example
        finally:
            raw.close()
    assert _leftovers(pg_server) == []


def _mig1_only(tmp_path: Path) -> Path:
    """A copy of the schema_migration case whose spec keeps MIG-1 only (the default tier's PostgreSQL run: a
    PostgreSQL example costs a schema, a CREATE TABLE and a drop on the server, about 30 ms)."""
    import shutil

    case = shutil.copytree(CASE, tmp_path / "case", ignore=shutil.ignore_patterns("__pycache__"))
    (case / "case.toml").unlink()
    text = (case / "migrate.req").read_text(encoding="utf-8")
    kept = text[:text.index("  requirement MIG-2")]
    assert "requirement MIG-1" in kept
    (case / "migrate.req").write_text(kept, encoding="utf-8")
    return case / "migrate.req"


def test_postgresql_backend_refutes_the_agent_and_not_the_reference(tmp_path: Path,
                                                                    pg_server: pg_server_mod.PgServer) -> None:
    """The issue's done-when on PostgreSQL (MIG-1; the whole case is the slow test below): the agent's migration
    refuted with a one-row table replayed on a fresh database, the reference not refuted within the bounds, every
    throw-away database and role dropped afterwards."""
    spec = _mig1_only(tmp_path)
    res = run_cli("check", str(spec), "--target", str(spec.parent / "agent_migrate.py"), "--format", "json",
                  "--no-cache", "--budget", "2", "--database-url", pg_server.url)
    assert res.exit_code == 1, res.stdout + res.stderr
    (mig1,) = res.json()["requirements"]
    assert mig1["verdict"] == "refuted" and mig1["counterexample"] == "MIG-1 on tables users: [('', 0, '')]"
    v = mig1["verdicts"][0]
    assert "replayed on a fresh PostgreSQL database" in v["reason"] and "after: users: []" in v["reason"]
    assert "INSERT INTO \"users\" (id, name, height_cm, country) VALUES (1, '', 0, '');" in v["reason"]
    assert "dbpg.PgConnection(raw)" in v["reproducer"]
    ref = run_cli("check", str(spec), "--target", str(spec.parent / "reference_migrate.py"), "--format", "json",
                  "--no-cache", "--budget", "2", "--database-url", pg_server.url)
    assert ref.exit_code == 0, ref.stdout + ref.stderr
    (mig1,) = ref.json()["requirements"]
    assert mig1["verdict"] == "no-counterexample"
    assert "(343 contents, 0 refused" in mig1["bounds"][0], mig1["bounds"]
    engine = [b for b in mig1["bounds"] if b.startswith("engine:")]
    assert engine and engine[0].startswith("engine: PostgreSQL 1") and "collation 'C'" in engine[0], engine
    assert _leftovers(pg_server) == []


@pytest.mark.slow
def test_schema_migration_case_on_postgresql(pg_server: pg_server_mod.PgServer) -> None:
    """`evalgap check case_studies/schema_migration --database-url URL`, both implementations, every requirement
    (about 150 CPU seconds, most of them the server's: 10 requirement runs of 443 examples)."""
    res = run_cli("check", str(CASE), "--format", "json", "--no-cache", "--budget", "2", "--database-url",
                  pg_server.url)
    assert res.exit_code == 1, res.stdout + res.stderr
    rs = {r["id"]: r for r in res.json()["requirements"]}
    assert rs["MIG-1"]["counterexample"] == "MIG-1 on tables users: [('', 0, '')]"
    assert [rs[k]["verdict"] for k in ("MIG-2", "MIG-3", "MIG-4", "MIG-5")] == ["no-counterexample"] * 4
    ref = run_cli("check", str(CASE), "--target", "reference", "--format", "json", "--no-cache", "--budget", "2",
                  "--database-url", pg_server.url)
    got = {r["id"]: r["verdict"] for r in ref.json()["requirements"]}
    assert ref.exit_code == 0 and got == {**{f"MIG-{i}": "no-counterexample" for i in range(1, 6)},
                                          "MIG-6": "not-formalized"}, ref.stdout + ref.stderr
    assert _leftovers(pg_server) == []


_ESCAPES = {
    "socket": '''import socket

def migrate(conn):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect({sock!r})
    conn.execute("DELETE FROM accounts")
''',
    "pg8000": '''def migrate(conn):
    import pg8000.dbapi
    own = pg8000.dbapi.connect(user={user!r}, database="postgres", unix_sock={sock!r})
    own.autocommit = True
    own.cursor().execute("DROP DATABASE eg_victim")
    conn.execute("DELETE FROM accounts")
''',
    "psycopg": '''def migrate(conn):
    try:
        import psycopg
    except ImportError:
        import psycopg2 as psycopg
    psycopg.connect("host={dir} port={port} user={user} dbname=postgres").execute("DROP DATABASE eg_victim")
''',
    "given-connection": '''def migrate(conn):
    conn.execute("DROP DATABASE eg_victim")
    conn.execute("DELETE FROM accounts")
''',
}


@pytest.mark.adversarial
@pytest.mark.parametrize("how", sorted(_ESCAPES))
def test_a_migration_cannot_reach_the_server_or_another_database(tmp_path: Path, how: str,
                                                                 pg_server: pg_server_mod.PgServer) -> None:
    """A migration that opens its own socket or driver connection to the server, or drops another database over
    the connection it was given, fails safely: no verdict passes it, and the other database is intact."""
    admin: Any = pg_server.connect()
    admin.autocommit = True
    admin.cursor().execute("DROP DATABASE IF EXISTS eg_victim")
    admin.cursor().execute("CREATE DATABASE eg_victim")
    sock = str(pg_server.socket_dir / f".s.PGSQL.{pg_server.port}")
    code = _ESCAPES[how].format(sock=sock, user=pg_server.user, dir=pg_server.socket_dir, port=pg_server.port)
    try:
        spec = _project(tmp_path, "mig.py", code)
        res = run_cli("check", str(spec), "--format", "json", "--no-cache", "--budget", "2", "--database-url",
                      pg_server.url)
        rs = {r["id"]: r for r in res.json()["requirements"]}
        assert {r["verdict"] for r in rs.values()} <= {"unknown", "refuted"}, rs
        reason = str(rs["ACC-1"]["verdicts"][0]["reason"])
        blocked = ("blocked", "PermissionError", "Operation not permitted")
        # pg8000 masks socket()'s EPERM: its clean-up then reads the unbound socket (UnboundLocalError)
        expected = {"socket": blocked, "pg8000": (*blocked, "UnboundLocalError: cannot access local variable 'sock'"),
                    "psycopg": (*blocked, "ModuleNotFoundError"),
                    "given-connection": ("must be owner of database eg_victim",)}[how]
        assert any(e in reason for e in expected), reason
        cur = admin.cursor()
        cur.execute("SELECT count(*) FROM pg_database WHERE datname = 'eg_victim'")
        assert cur.fetchone()[0] == 1
    finally:
        admin.cursor().execute("DROP DATABASE IF EXISTS eg_victim")
        admin.close()
    assert _leftovers(pg_server) == []
