"""JUnit names are stable: the test case of a requirement is ``evalgap.<spec>`` / ``KV-1`` whatever its
verdict and budget (they are in the message and the case's properties), ``file`` is relative to the current
folder, and the gate writes the same dialect as ``check`` for the same requirement."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from report_fixtures import sample_report, sample_results

from evalgap.verifier.findings import Budget, Verdict
from evalgap.verifier.gate.model import GateReport, RequirementChange
from evalgap.verifier.gate.report import render_gate_junit
from evalgap.verifier.report.gap import build_report
from evalgap.verifier.report.junit import render_junit


def _cases(xml: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml)
    return {f"{c.get('classname')}::{c.get('name')}": c for c in root.iter("testcase")}


def _props(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def test_names_do_not_change_with_the_verdict_or_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec = str(tmp_path / "specs" / "demo.req")
    results = sample_results(spec)
    first = build_report("demo", "Demo", spec, "demo.py", 2.0, results, 1.0)
    # the same requirements after a change: R-1 now holds within 10 s, R-3 was refuted, budgets grew
    r1 = dataclasses.replace(results[0], verdict=Verdict.NO_COUNTEREXAMPLE, verdicts=tuple(
        dataclasses.replace(v, verdict=Verdict.NO_COUNTEREXAMPLE, budget=Budget(seconds=10.0), counterexample=None)
        for v in results[0].verdicts))
    r3 = dataclasses.replace(results[2], verdict=Verdict.REFUTED)
    second = build_report("demo", "Demo", spec, "demo.py", 10.0, [r1, results[1], r3, *results[3:]], 1.0)
    a, b = _cases(render_junit(first)), _cases(render_junit(second))
    assert list(a) == list(b) == [f"evalgap.demo::R-{i}" for i in range(1, 8)]
    assert a["evalgap.demo::R-1"].find("failure") is not None and b["evalgap.demo::R-1"].find("failure") is None
    assert _props(a["evalgap.demo::R-1"])["verdict"] == "refuted"
    assert _props(b["evalgap.demo::R-1"])["verdict_detail"] == "no-counterexample within 10 s"
    assert _props(b["evalgap.demo::R-1"])["budget"] == "10 s"
    assert "verdict: no-counterexample within 10 s" in (b["evalgap.demo::R-1"].findtext("system-out") or "")
    assert {c.get("file") for c in a.values()} == {"specs/demo.req"}  # relative to the current folder
    assert ET.fromstring(render_junit(first)).find("testsuite").get("name") == "evalgap.demo"  # type: ignore[union-attr]


def test_a_spec_outside_the_current_folder_keeps_its_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    cases = _cases(render_junit(sample_report(spec_file=str(tmp_path / "other" / "demo.req"))))
    assert {c.get("file") for c in cases.values()} == {str(tmp_path / "other" / "demo.req")}


def test_gate_writes_the_check_dialect_for_its_requirements(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    check_results = sample_results(str(tmp_path / "specs" / "demo.req"))
    head = sample_results("/tmp/evalgap-snapshot-1234/head/specs/demo.req")  # the gate checks a checkout
    changes = tuple(RequirementChange(r.id, r.prose, "broken" if r.verdict is Verdict.REFUTED else "unchanged",
                                      r, None, ("demo.py:Store.get",)) for r in head[:4])
    gate = GateReport("repo", "base", "head", "specs/demo.req", "demo.py", (), changes, (), (), (), (), (), 2.0,
                      2.0, 1.0, spec_name="demo")
    check = _cases(render_junit(build_report("demo", "Demo", str(tmp_path / "specs" / "demo.req"), "demo.py", 2.0,
                                             check_results, 1.0)))
    gated = _cases(render_gate_junit(gate))
    assert list(gated) == ["evalgap.demo::R-1", "evalgap.demo::R-2", "evalgap.demo::R-3", "evalgap.demo::R-4"]
    for key, case in gated.items():
        mine = check[key]
        assert (case.get("file"), case.get("line")) == (mine.get("file"), mine.get("line")) == (
            "specs/demo.req", mine.get("line"))
        assert [(e.tag, e.get("message")) for e in case if e.tag in ("failure", "skipped")] == [
            (e.tag, e.get("message")) for e in mine if e.tag in ("failure", "skipped")]
        assert {k: v for k, v in _props(case).items() if k not in ("transition", "base_verdict")} == {
            k: v for k, v in _props(mine).items() if k != "flags"}  # flags come from the gap report's build
    assert _props(gated["evalgap.demo::R-1"])["transition"] == "broken"
    assert ET.fromstring(render_gate_junit(gate)).find("testsuite").get("name") == "evalgap.demo"  # type: ignore[union-attr]
