"""The gate's case studies, each a small git history built from tests/fixtures/gate (see its README).

CrossHair budgets are tiny (2-4 CPU s); these run in ~10-40 s each and are marked slow.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from evalgap.verifier.cli.main import cli
from evalgap.verifier.gate.run import GateOptions, GateReport, gate_exit_code, run_gate
from evalgap.verifier.gate.report import (gate_to_dict, render_gate_junit, render_gate_markdown,
                                          render_gate_sarif, render_gate_text)
from gate_repos import build_repo, shared_data  # noqa: F401 - fixture

pytestmark = pytest.mark.slow


# The gate fixtures' requirements take record types (Refund, ...) that Hypothesis has no strategy for (its
# verdict would be `unknown: unsupported`); these tests are about CrossHair's checks and diffs, so they pin it.
CROSSHAIR_ONLY = ("crosshair",)


def gate_json(repo: Path, spec: str, head: str, *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = CliRunner().invoke(cli, ["gate", str(repo), "--spec", spec, "--base", "main", "--head", head,
                                   "--format", "json", "--budget", "2", "--diff-budget", "3", "-j", "2",
                                   "--engines", "crosshair", *extra])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return res.exit_code, json.loads(res.stdout)


@pytest.fixture(scope="module")
def refunds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_repo("refunds", tmp_path_factory.mktemp("refunds"))


@pytest.fixture(scope="module")
def stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_repo("stats", tmp_path_factory.mktemp("stats"))


@pytest.fixture(scope="module")
def refund_report(refunds: Path) -> GateReport:
    return run_gate(refunds, Path("refunds.req"), "main", "v2", None,
                    GateOptions(budget_s=2, diff_budget_s=4, jobs=2, engines=CROSSHAIR_ONLY))


def _has_duplicate_request(call: str) -> bool:
    items = re.findall(r"Refund\([^)]*\)", call)
    return len(items) != len(set(items))


def test_refund_fix_is_reported_and_duplicate_dropping_is_unexplained(refund_report: GateReport) -> None:
    r = refund_report
    assert {u.qualname for u in r.changed} == {"decide", "process"}
    rows = {c.id: c for c in r.requirements}
    assert set(rows) == {"RF-1", "RF-2", "RF-3"}  # RF-4 is informal: not reached, not re-checked
    assert rows["RF-2"].transition == "fixed"
    assert rows["RF-2"].base is not None and rows["RF-2"].base.verdict is not None
    assert rows["RF-2"].base.verdict.value == "refuted"
    assert rows["RF-2"].head.verdict is not None and rows["RF-2"].head.verdict.value != "refuted"
    assert [i for i, _ in r.not_rechecked] == ["RF-4"]
    unexplained = r.unexplained()
    assert unexplained and all(d.qualname == "process" for d in unexplained)
    assert any(_has_duplicate_request(d.difference.call("process")) for d in unexplained)
    fix_diffs = [d for d in r.differences if d.classification in ("explained", "possibly-explained")]
    assert fix_diffs and all(d.explained_by == ("RF-2",) for d in fix_diffs)
    assert r.gaming == ()
    assert gate_exit_code(r) == 0
    assert gate_exit_code(dataclasses.replace(r, fail_on_unexplained=True)) == 1
    # renderers
    data = gate_to_dict(r)
    assert data["summary"]["fixed"] == 1 and data["summary"]["unexplained_changes"] == len(unexplained)
    md = render_gate_markdown(r)
    assert "| **RF-2**" in md and "fixed" in md and "**unexplained**" in md
    assert "UNEXPLAINED" in render_gate_text(r)
    import xml.etree.ElementTree as ET

    suite = ET.fromstring(render_gate_junit(r)).find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    names = [c.get("name") for c in suite.iter("testcase")]
    assert names[:3] == ["RF-1", "RF-2", "RF-3"] and len(names) == 3 + len(unexplained)
    strict = ET.fromstring(render_gate_junit(dataclasses.replace(r, fail_on_unexplained=True))).find("testsuite")
    assert strict is not None and strict.get("failures") == str(len(unexplained))


def test_gate_sarif_is_valid_sarif_2_1_0(refund_report: GateReport, shared_data: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((shared_data / "schemas" / "sarif-schema-2.1.0.json").read_text())
    sarif = json.loads(render_gate_sarif(refund_report))
    jsonschema.validate(sarif, schema)
    assert {res["ruleId"] for res in sarif["runs"][0]["results"]} == {"EG-BEHAVIOR"}


def test_refund_fix_only_is_explained_by_replaying_the_requirement(refunds: Path) -> None:
    code, data = gate_json(refunds, "refunds.req", "fixonly")
    assert code == 0
    assert data["summary"]["fixed"] == 1 and data["summary"]["unexplained_changes"] == 0
    diffs = data["differences"]
    assert diffs and all(d["classification"] == "explained" and d["explained_by"] == ["RF-2"] for d in diffs)


def test_load_balancer_dropping_requests_is_refuted(tmp_path: Path) -> None:
    repo = build_repo("balancer", tmp_path / "lb")
    code, data = gate_json(repo, "balancer.req", "v2", "--no-behavior-diff")
    assert code == 1
    [lb1] = data["requirements"]
    assert lb1["id"] == "LB-1" and lb1["transition"] == "broken" and lb1["head_verdict"] == "refuted"
    assert "Every accepted request is dispatched to exactly one backend." == lb1["prose"]
    assert data["changed"][0]["unit"] == "Balancer.accept"


@pytest.mark.parametrize("branch, code", [("proxy", "EG401"), ("icontract", "EG402"), ("hardcode", "EG407")])
def test_gaming_patches_are_flagged_by_their_rule(stats: Path, branch: str, code: str) -> None:
    exit_code, data = gate_json(stats, "stats.req", branch, "--no-behavior-diff")
    assert exit_code == 1
    assert [g["code"] for g in data["gaming"] if not g["silenced"]] == [code]
    assert data["gaming"][0]["path"] == "stats.py"


def test_clean_refactor_passes(stats: Path) -> None:
    res = CliRunner().invoke(cli, ["gate", str(stats), "--spec", "stats.req", "--base", "main", "--head",
                                   "refactor", "--budget", "3", "--diff-budget", "2", "-j", "2"])
    assert res.exit_code == 0, res.output
    assert "none found" in res.output and "UNEXPLAINED" not in res.output
    assert "stats.py:median: no-difference" in res.output or "stats.py:median: equivalent" in res.output


def test_usage_errors_exit_2(stats: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["gate", str(stats), "--spec", "stats.req", "--base", "nope"])
    assert res.exit_code == 2 and "'nope' is not a commit" in res.stderr
    res = runner.invoke(cli, ["gate", str(tmp_path), "--spec", "stats.req"])
    assert res.exit_code == 2 and "not inside a git repository" in res.stderr
    res = runner.invoke(cli, ["gate", str(stats), "--spec", "missing.req", "--head", "proxy", "--base", "main"])
    assert res.exit_code == 2 and "missing.req" in res.stderr


def test_differences_are_classified_by_replaying_the_requirements(stats: Path, tmp_path: Path) -> None:
    """Direct test of the classification: an input outside the precondition, an input where base violates
    the requirement and head meets it, and one where nothing explains the change."""
    from evalgap.specs_lang import parse_file
    from evalgap.verifier.gate.behavior_diff import Behavior, BehaviorDifference
    from evalgap.verifier.gate.diffs import classify as _classify, harness_sides as _harness_sides
    from evalgap.verifier.gate.gitdiff import ChangedUnit, materialize
    from evalgap.verifier.project.targets import resolve_target

    snap = materialize(stats, "main", "proxy", None, tmp_path / "snap")
    spec = parse_file(snap.head_dir / "stats.req")
    src = (snap.head_dir / "stats.req").read_text()
    sides = _harness_sides(spec, src, resolve_target("stats.py", snap.base_dir),
                           resolve_target("stats.py", snap.head_dir), tmp_path)
    unit = ChangedUnit("stats.py", "median", "function", "modified", 4, 6, "(xs: list[int]) -> float",
                       "(xs: list[int]) -> float")
    beh = Behavior("1.0", None, "returns 1.0")

    def classify(xs: str) -> tuple[str, tuple[str, ...]]:
        d = _classify(unit, BehaviorDifference((("xs", xs),), beh, beh), spec, sides, set(),
                      {"MD-0": {"median"}, "MD-1": {"median"}}, {})
        return d.classification, d.explained_by

    assert classify("[]") == ("outside-precondition", ("MD-1",))
    assert classify("[5000000000, 1]") == ("outside-precondition", ("MD-1",))
    assert classify("[1, 2, 3, 4]") == ("unexplained", ())
    assert _classify(unit, BehaviorDifference((("xs", "[1, 2]"),), beh, beh), spec, sides, {"MD-1"},
                     {"MD-1": {"median"}}, {}).classification == "explained"
