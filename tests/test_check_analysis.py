"""The Z3 analysis inside ``evalgap check``: its findings in the JSON ``spec_findings`` and the exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evalgap.verifier.cli.main import cli
from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import build_report, exit_code
from evalgap.verifier.analysis.spec_findings import AnalysisReport, SpecFinding


def _report(analysis: AnalysisReport | None) -> object:
    res = [RequirementResult("R-1", "r", "s.req:1:1", "formal", verdict=Verdict.VERIFIED)]
    rep = build_report("s", "", "s.req", "t.py", 1.0, res, 0.1)
    from dataclasses import replace

    return replace(rep, analysis=analysis)


def test_exit_code_counts_analysis_errors_only() -> None:
    conflict = SpecFinding("EG301", "conflict", "error", "function f", ("A", "B"), "conflict")
    unknown = SpecFinding("EG308", "unknown", "unknown", "function f", ("C",), "C: unknown (...)")
    assert exit_code(_report(None)) == 0  # type: ignore[arg-type]
    assert exit_code(_report(AnalysisReport("s", "s.req", (unknown,), 1.0, 0.0))) == 0  # type: ignore[arg-type]
    assert exit_code(_report(AnalysisReport("s", "s.req", (conflict, unknown), 1.0, 0.0))) == 1  # type: ignore


@pytest.mark.slow
def test_check_json_has_analysis(tmp_path: Path) -> None:
    (tmp_path / "impl.py").write_text("def clamp(x: int) -> int:\n    return max(0, min(x, 10))\n")
    (tmp_path / "c.req").write_text('''spec c "clamp"
  target: impl.py
function clamp(x: int) -> int
  requirement C-1 "The result is between 0 and 10."
    ensures 0 <= result <= 10
  requirement C-2 "Negative inputs give 0."
    ensures x < 0 ==> result == 0
''')
    res = CliRunner().invoke(cli, ["check", str(tmp_path / "c.req"), "--format", "json", "--budget", "1", "-j", "1"])
    data = json.loads(res.output)
    kinds = [f["kind"] for f in data["spec_findings"]]  # the Z3 analysis, as the report's spec findings
    assert "consistent" in kinds and "realizable" in kinds and "conflict" not in kinds
    assert all(f["code"].startswith("EG3") for f in data["spec_findings"])
    res2 = CliRunner().invoke(cli, ["check", str(tmp_path / "c.req"), "--format", "json", "--budget", "1", "-j", "1",
                                    "--no-analysis"])
    assert json.loads(res2.output)["spec_findings"] == []


def test_text_report_groups_requirements_outside_the_fragment() -> None:
    import io

    from evalgap.verifier.report.analysis_text import render_analysis_text

    findings = tuple(SpecFinding("EG308", "unknown", "unknown", "top level", (i,), f"{i}: unknown (scenario clause)")
                     for i in ("KV-1", "KV-2", "KV-3"))
    conflict = SpecFinding("EG301", "conflict", "error", "function f", ("A", "B"), "A and B conflict")
    rep = AnalysisReport("s", "s.req", findings + (conflict,), 1.0, 0.0)
    grouped, full = io.StringIO(), io.StringIO()
    render_analysis_text(rep, grouped, heading=False, group_outside=True)
    render_analysis_text(rep, full, heading=False)
    g_lines = grouped.getvalue().splitlines()
    assert [ln for ln in g_lines if ln.startswith("EG308")] == [
        "EG308 unknown unknown      [top level] not analysed, outside the Z3 fragment "
        "(`evalgap analyze` names the construct): KV-1, KV-2, KV-3"]
    assert any(ln.startswith("EG301") for ln in g_lines)
    assert sum(ln.startswith("EG308") for ln in full.getvalue().splitlines()) == 3  # `analyze` keeps each one
