"""An Alembic project (tests/fixtures/alembic_project) checked like a SQL migration: its deploy step runs
``alembic upgrade head`` (``op.add_column``, ``op.execute``, ``op.batch_alter_table``) on the database the
``database`` engine fills from the baseline schema, inside the sandboxed worker; the lossy revision is refuted
with one row, the correct one is not (docs/database.md)."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from egtest import run_cli

PROJECT = Path(__file__).resolve().parent / "fixtures" / "alembic_project"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A copy of the project (Alembic writes bytecode beside its revisions; the repository stays clean)."""
    pytest.importorskip("alembic", reason="alembic (in the test extra) is not installed")
    dest = tmp_path / "alembic_project"
    shutil.copytree(PROJECT, dest)
    return dest


def _check(project: Path, target: str) -> tuple[int, dict[str, Any]]:
    res = run_cli("check", str(project / "accounts.req"), "--target", str(project / target), "--format", "json",
                  "--no-cache", "--budget", "2")
    assert res.exit_code in (0, 1), res.stdout + res.stderr
    return res.exit_code, {r["id"]: r for r in res.json()["requirements"]}


def test_the_revisions_run_for_real_in_process(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trusted code (the fixture), so in-process: the correct revision copies every email, the lossy one not."""
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    import deploy  # type: ignore[import-not-found]

    rows = {}
    for versions in ("versions", "versions_lossy"):
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.executescript((project / "schema" / "0001_accounts.sql").read_text(encoding="utf-8"))
        conn.execute("INSERT INTO accounts VALUES (1, 'Ada', NULL), (2, 'ada@example.org', 'vip')")
        deploy.migrate(conn, versions)
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0002",)]
        assert [r[1] for r in conn.execute("PRAGMA table_info(accounts)")] == ["id", "note", "contact"]
        rows[versions] = conn.execute("SELECT id, contact FROM accounts ORDER BY id").fetchall()
    assert rows == {"versions": [(1, "Ada"), (2, "ada@example.org")],
                    "versions_lossy": [(1, ""), (2, "ada@example.org")]}
    sys.modules.pop("deploy", None)


@pytest.mark.slow
def test_lossy_alembic_revision_refuted_with_one_row(project: Path) -> None:
    code, rs = _check(project, "deploy_lossy.py")
    assert code == 1 and rs["ALB-2"]["verdict"] == "refuted" and rs["ALB-1"]["verdict"] == "no-counterexample"
    assert rs["ALB-2"]["counterexample"] == "ALB-2 on tables accounts: [('Ada', '')]"
    reason = rs["ALB-2"]["verdicts"][0]["reason"]
    assert "INSERT INTO \"accounts\" (id, email, note) VALUES (1, 'Ada', '');" in reason
    assert "after: alembic_version: [('0002',)]; accounts: [(1, '', '')]" in reason


@pytest.mark.slow
def test_correct_alembic_revision_not_refuted(project: Path) -> None:
    code, rs = _check(project, "deploy.py")
    assert code == 0
    for rid in ("ALB-1", "ALB-2"):
        assert rs[rid]["verdict"] == "no-counterexample"
        assert rs[rid]["verdicts"][0]["budget"]["examples"] > 200
