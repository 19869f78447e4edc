"""Bounds are part of a proof (issue 18): a class invariant checked over at most 3 method calls is
``verified`` only within that bound, and every format says so; ``--fail-on bounded`` covers it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.translators.icontract_state import INVARIANT_STEPS
from evalgap.verifier.findings import Budget, EngineVerdict, RequirementResult, Verdict
from evalgap.verifier.gate.report import _verdict_text
from evalgap.verifier.report import formats
from evalgap.verifier.report.explain import explain
from evalgap.verifier.report.gap import (EXIT_OK, EXIT_REFUTED, FLAGS, build_report, exit_code,
                                         requirement_flags)
from evalgap.verifier.report.json_report import to_dict, validate_report

_BOUND = f"call sequence: at most {INVARIANT_STEPS} method calls after construction"

METER = """\
class Meter:
    def __init__(self) -> None:
        self.level = 0
        self.calls = 0

    def tick(self) -> None:
        self.calls += 1
        if self.calls >= 4:  # breaks on the 4th call: beyond the bound
            self.level = -1
"""

METER_SPEC = """\
spec meter "bounded invariant"
  target: {target}

class Meter
  method tick() -> None
  requirement MT-1 "The level stays non-negative."
    invariant self.level >= 0
"""


def _bounded_report() -> object:
    v = EngineVerdict("crosshair", Verdict.VERIFIED, "all paths exhausted", Budget(seconds=2.0, paths=4),
                      bounds=(_BOUND + " (longer sequences are not explored)",))
    plain = EngineVerdict("crosshair", Verdict.VERIFIED, "all paths exhausted", Budget(seconds=2.0, paths=1))
    ranged = EngineVerdict("crosshair", Verdict.VERIFIED, "all paths exhausted", Budget(seconds=2.0, paths=1))
    results = [
        RequirementResult("MT-1", "The level stays non-negative.", "meter.req:6:3", "formal", verdicts=(v,),
                          verdict=Verdict.VERIFIED, formal_text="invariant self.level >= 0"),
        RequirementResult("PL-1", "Plain proof.", "meter.req:9:3", "formal", verdicts=(plain,),
                          verdict=Verdict.VERIFIED),
        RequirementResult("RG-1", "Within a range.", "meter.req:12:3", "formal", verdicts=(ranged,),
                          verdict=Verdict.VERIFIED, narrowed_by=("n: int in 0..1000", "PRE-1")),
    ]
    return build_report("meter", "bounded invariant", "meter.req", "meter.py", 2.0, results, 1.0)


def _evidence_column(table: str) -> str:
    """The text report's last column (evidence), its wrapped lines joined: the bound is one phrase there. Below
    100 columns (no terminal, e.g. a pytest-xdist worker) the report is a list, not a table: all of it, joined."""
    cells = [line.rstrip().rstrip("│").rsplit("│", 1)[-1].strip() for line in table.splitlines() if "│" in line]
    return " ".join(" ".join(cells if cells else table.splitlines()).split())


def test_bounds_flag_and_fail_on() -> None:
    report = _bounded_report()
    mt, pl, rg = report.requirements  # type: ignore[attr-defined]
    assert mt.bounds and mt.bounds[0].startswith(_BOUND) and mt.flags == ("bounded-proof",)
    assert pl.bounds == () and pl.flags == ()
    assert rg.bounds == ("n: int in 0..1000",)  # the narrowed type is a bound; the precondition ID is not
    assert rg.flags == ("bounded-proof", "narrowed-domain")
    assert "bounded-proof" in FLAGS and requirement_flags(mt) == ("bounded-proof",)
    assert exit_code(report) == EXIT_OK  # type: ignore[arg-type]
    assert exit_code(report, ("bounded",)) == EXIT_REFUTED  # type: ignore[arg-type]
    refuted = RequirementResult("X-1", "x", "a:1:1", "formal", narrowed_by=("n: int in 0..9",),
                                verdicts=(EngineVerdict("crosshair", Verdict.REFUTED, "r"),), verdict=Verdict.REFUTED)
    assert refuted.bounds == ()  # a counterexample is not weakened by a bound


@pytest.mark.parametrize("name", ["text", "json", "sarif", "junit", "markdown", "html"])
def test_every_format_shows_the_bound(name: str) -> None:
    fmt = formats.get(name)
    assert fmt is not None
    out = fmt.render(_bounded_report())  # type: ignore[arg-type]
    flat = _evidence_column(out) if name == "text" else " ".join(out.split())
    assert _BOUND in flat, f"{name} does not show the bound:\n{out[:3000]}"
    assert "n: int in 0..1000" in flat
    if name == "json":
        data = json.loads(out)
        assert validate_report(data) == []
        mt = data["requirements"][0]
        assert mt["verdict"] == "verified" and mt["bounds"][0].startswith(_BOUND)
        assert mt["verdicts"][0]["bounds"][0].startswith(_BOUND) and mt["flags"] == ["bounded-proof"]
        assert data["requirements"][1]["bounds"] == []
    if name == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert [(r["ruleId"], r["level"], r["properties"]["requirementId"]) for r in results] == [
            ("EG503", "note", "MT-1"), ("EG503", "note", "RG-1")]
    if name == "junit":
        assert 'name="MT-1"' in flat and 'value="verified within bounds: ' + _BOUND in flat
        assert 'name="PL-1"' in flat


def test_explain_and_gate_show_the_bound() -> None:
    report = _bounded_report()
    assert _BOUND in explain(to_dict(report), "MT-1")  # type: ignore[arg-type]
    mt = report.requirements[0]  # type: ignore[attr-defined]
    assert _verdict_text(mt).startswith("verified within bounds: " + _BOUND)


def test_invariant_broken_on_the_fourth_call_is_a_bounded_proof(tmp_path: Path) -> None:
    spec = write_case(tmp_path, METER, METER_SPEC)
    (r,) = run_check(spec, budget_s=3.0)
    assert r.verdict is Verdict.VERIFIED, r.verdicts  # the harness explores 3 calls: the 4th is beyond
    assert r.verdicts[0].bounds and r.verdicts[0].bounds[0].startswith(_BOUND)
    report = build_report("meter", "", str(spec), "target_mod.py", 3.0, [r], 1.0)
    assert report.requirements[0].flags == ("bounded-proof",)
    assert exit_code(report, ("bounded",)) == EXIT_REFUTED
    assert _BOUND in _evidence_column(formats.get("text").render(report))  # type: ignore[union-attr]
