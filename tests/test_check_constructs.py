"""`evalgap check` on the new constructs end to end (CrossHair in workers, tiny budgets: slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evalgap.verifier.cli.main import cli

ROOT = Path(__file__).parents[1]


@pytest.mark.slow
def test_constructs_are_really_checked(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    res = CliRunner().invoke(cli, ["check", str(Path(__file__).parent / "specs" / "check_constructs.req"),
                                   "--budget", "2", "-j", "2", "--format", "json", "-o", str(out)])
    assert res.exit_code == 1, res.output
    got = {r["id"]: r for r in json.loads(out.read_text())["requirements"]}
    assert got["PUB-1"]["verdict"] == "refuted"  # found through the stub's symbolic picks (two timeouts)
    assert got["S-6"]["verdict"] == "refuted"  # `raises ... when` that the code does not meet
    for rid in ("S-1", "S-4", "P-1", "AC-2", "AC-3", "AC-1"):
        assert got[rid]["verdict"] in ("verified", "no-counterexample", "unknown"), rid
        assert got[rid]["verdict"] != "refuted"
    assert "items: list[int] len 0..5" in got["S-1"]["narrowed_by"] and "S-6" in got["S-1"]["narrowed_by"]
    assert got["P-1"]["narrowed_by"] == ["code: str digits", "tag: str chars 'abc'"]


@pytest.mark.slow
def test_kvstore_case_still_refutes_kv1() -> None:
    res = CliRunner().invoke(cli, ["check", str(ROOT / "case_studies" / "kvstore"), "--budget", "2", "-j", "2",
                                   "--format", "json"])
    assert res.exit_code == 1
    got = {r["id"]: r["verdict"] for r in json.loads(res.stdout)["requirements"]}
    assert got["KV-1"] == "refuted" and got["KV-5"] == "not-formalized"
