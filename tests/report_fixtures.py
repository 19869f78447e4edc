"""Shared builders for the gap-report tests: GapReport objects built directly (fast, no engine run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.verifier.findings import (Budget, EngineVerdict, RequirementResult, SpecFinding, TestEvidence,
                                       Verdict)
from evalgap.verifier.report.gap import GapReport, build_report

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
KV = REPO / "case_studies" / "kvstore"


def shared_data_or_skip() -> Path:
    """``../shared/data`` relative to the repository root, or skip the test with the reason."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (../shared/data beside the repository)")
    return SHARED_DATA


def _ev(verdict: Verdict, reason: str, engine: str = "crosshair", cex: str | None = None,
        assumptions: tuple[str, ...] = ()) -> EngineVerdict:
    return EngineVerdict(engine, verdict, reason, Budget(seconds=2.0, used_s=1.0, paths=3), cex,
                         (("key", "''"),) if cex else (), 0.5, assumptions=assumptions)


def sample_results(spec_file: str = "/repo/case/demo.req") -> list[RequirementResult]:
    """Seven requirements, one for each situation the report distinguishes."""
    def loc(line: int) -> str:
        return f"{spec_file}:{line}:1"

    passed = (TestEvidence("test_demo.py::test_put", "passed", ("Store.put",)),)
    return [
        RequirementResult("R-1", "A value written with put is returned unchanged by get.", loc(3), "formal",
                          formal_text="scenario (key: str):\n  expect s.get(key) == v",
                          verdicts=(_ev(Verdict.REFUTED, "`expect` does not hold", cex="put then get with key=''"),),
                          verdict=Verdict.REFUTED, target_functions=("Store.get", "Store.put"), tests=passed),
        RequirementResult("R-2", "Getting a key that was never written raises KeyError.", loc(8), "formal",
                          verdicts=(_ev(Verdict.VERIFIED, "all paths exhausted"),), verdict=Verdict.VERIFIED,
                          target_functions=("Store.get",)),
        RequirementResult("R-3", "Delete removes the key.", loc(12), "formal",
                          verdicts=(_ev(Verdict.NO_COUNTEREXAMPLE, "no counterexample within 2 s budget",
                                        assumptions=("keys of at most 8 characters",)),),
                          verdict=Verdict.NO_COUNTEREXAMPLE, target_functions=("Store.delete",)),
        RequirementResult("R-4", "The size is reported.", loc(16), "formal",
                          verdicts=(_ev(Verdict.UNKNOWN, "budget exhausted: no path completed"),),
                          verdict=Verdict.UNKNOWN, target_functions=("Store.size",), tests=passed),
        RequirementResult("R-5", "Reads are fast enough for interactive use, etc.", loc(20), "informal",
                          category="vague", informal_reason="no latency bound",
                          verdicts=(EngineVerdict("none", Verdict.NOT_FORMALIZED, "vague: no latency bound"),),
                          verdict=Verdict.NOT_FORMALIZED),
        RequirementResult("R-6", "add(2, 3) is 5.", loc(23), "example",
                          verdicts=(_ev(Verdict.NO_COUNTEREXAMPLE, "all 1 concrete example(s) hold", "example"),),
                          verdict=Verdict.NO_COUNTEREXAMPLE, target_functions=("add",)),
        RequirementResult("R-7", "Sorting keeps every element.", loc(26), "formal",
                          verdicts=(_ev(Verdict.REFUTED, "postcondition is false", "hypothesis", cex="sort([1, 1])"),
                                    _ev(Verdict.NO_COUNTEREXAMPLE, "no counterexample within 2 s budget")),
                          verdict=Verdict.REFUTED, narrowed_by=("R-8",), target_functions=("sort",)),
    ]


def sample_report(spec_findings: tuple[SpecFinding, ...] = (), target_file: str | None = None,
                  spec_file: str = "/repo/case/demo.req") -> GapReport:
    """A GapReport over :func:`sample_results` (flags and smells computed by build_report)."""
    report = build_report("demo", "Demo store", spec_file, "demo_store.py", 2.0, sample_results(spec_file), 3.25,
                          {"R-1": ("refuted",)}, target_file=target_file, spec_findings=spec_findings)
    return report
