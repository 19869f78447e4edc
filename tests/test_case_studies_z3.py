"""The Z3 case studies, run as a user would (CLI in-process), with their expected results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evalgap.specs_lang import parse
from evalgap.verifier.analysis.run import analyze_spec, check_config_file
from evalgap.verifier.cli.main import cli

ROOT = Path(__file__).resolve().parents[1] / "case_studies"


def _run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.output


def test_privacy_conflict_names_both_and_each_removal_is_consistent() -> None:
    code, out = _run("analyze", str(ROOT / "privacy"), "--format", "json")
    assert code == 1
    data = json.loads(out)
    conflicts = [f for f in data["findings"] if f["kind"] == "conflict"]
    assert [c["requirements"] for c in conflicts] == [["PP-0", "PP-1", "PP-2"]]
    assert any("Personalize answers from the user's chat history" in d for d in conflicts[0]["details"])
    assert any("Retain no chat history beyond the session" in d for d in conflicts[0]["details"])
    text = (ROOT / "privacy" / "privacy.req").read_text()
    for drop in ("PP-0", "PP-1", "PP-2"):
        lines = text.splitlines()
        i = next(k for k, ln in enumerate(lines) if ln.strip().startswith(f"requirement {drop} "))
        rest = "\n".join(lines[:i] + lines[i + 2:]) + "\n"
        rep = analyze_spec(parse(rest), 3.0)
        assert not rep.of_kind("conflict") and rep.of_kind("consistent")


def test_sorting_weak_spec_witness_shows_empty_result() -> None:
    code, out = _run("analyze", str(ROOT / "sorting"))
    assert code == 0
    assert "`sort_list([" in out and "may return `[]`" in out
    assert "`dedup([" in out


def test_retention_config_passes_schema_but_violates_rules() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    folder = ROOT / "retention"
    doc = json.loads((folder / "platform.json").read_text())
    jsonschema.validate(doc, json.loads((folder / "platform.schema.json").read_text()))
    code, out = _run("check-config", str(folder), str(folder / "platform.json"), "--format", "json")
    assert code == 1
    data = json.loads(out)
    viol = {tuple(f["requirements"]): f for f in data["findings"] if f["kind"] == "violation"}
    assert set(viol) == {("RT-1",), ("AC-1",)}
    assert "retention_days=90" in viol[("RT-1",)]["details"][0]
    assert "role='partner-bi'" in viol[("AC-1",)]["details"][0]
    repair = [f for f in data["findings"] if f["kind"] == "repair"][0]
    assert repair["details"][:-1] == ["datasets[0].pii: True -> False"]


def test_retention_minimal_repair_with_facts_frozen_yaml() -> None:
    spec = parse((ROOT / "retention" / "retention.req").read_text(), "retention.req")
    rep = check_config_file(spec, ROOT / "retention" / "platform.yaml", timeout_s=5.0,
                            freeze=("datasets[*].pii", "grants[*].external"))
    repair = rep.of_kind("repair")[0]
    assert sorted(repair.details[:-1]) == ["datasets[0].retention_days: 90 -> 30", "grants[1].read: True -> False"]
    assert repair.details[-1].startswith("re-checked")


def test_retention_rules_consistent() -> None:
    code, out = _run("analyze", str(ROOT / "retention"))
    assert code == 0 and "EG300" in out


def test_kvstore_analysis_reports_scenarios_as_unknown() -> None:
    code, out = _run("analyze", str(ROOT / "kvstore"))
    assert code == 3 and out.count("not in the Z3 fragment: scenario clause") == 4


def test_check_config_usage_errors(tmp_path: Path) -> None:
    bad = tmp_path / "c.ini"
    bad.write_text("x")
    code, out = _run("check-config", str(ROOT / "retention"), str(bad))
    assert code == 2
    wrong = tmp_path / "c.json"
    wrong.write_text('{"max_pii_days": "thirty", "datasets": [], "grants": []}')
    code, out = _run("check-config", str(ROOT / "retention"), str(wrong))
    assert code == 2 and "max_pii_days: expected int" in out
