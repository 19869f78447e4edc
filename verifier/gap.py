"""Build the :class:`GapReport` (frozen data) from requirement results; renderers only render it."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from evalgap.verifier.findings import RequirementResult, Verdict

__all__ = ["GapReport", "build_report", "exit_code", "SCHEMA_VERSION", "EXIT_OK", "EXIT_REFUTED", "EXIT_USAGE",
           "EXIT_UNKNOWN"]

SCHEMA_VERSION = "1.0"

#: Exit codes, the same for every command (docs/verdicts.md). Precedence when several apply: 2, 1, 3.
EXIT_OK, EXIT_REFUTED, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


@dataclass(frozen=True)
class GapReport:
    """The gap report of one spec checked against one target.

    Attributes:
        spec_name, spec_title, spec_file: the spec.
        target: how the target was named (path, module or ``name (file)``).
        budget_s: CrossHair CPU seconds per requirement.
        requirements: one result per requirement, in source order.
        elapsed_s: wall-clock seconds of the whole check.
        tools: versions of evalgap, crosshair-tool, icontract, z3-solver.
        expected: for a case folder, requirement ID -> acceptable verdicts from the manifest.
    """

    spec_name: str
    spec_title: str
    spec_file: str
    target: str
    budget_s: float
    requirements: tuple[RequirementResult, ...]
    elapsed_s: float
    tools: dict[str, str] = field(default_factory=dict)
    expected: dict[str, tuple[str, ...]] = field(default_factory=dict)
    analysis: Any = None  # an evalgap.verifier.spec_findings.AnalysisReport (Z3 findings about the spec)

    def summary(self) -> dict[str, int]:
        """Counts: requirements, formalized, preconditions, and one per verdict word."""
        counts = {v.value: 0 for v in Verdict}
        for r in self.requirements:
            if r.verdict is not None:
                counts[r.verdict.value] += 1
        counts["requirements"] = len(self.requirements)
        counts["formalized"] = sum(1 for r in self.requirements if r.formalization != "informal")
        counts["preconditions"] = sum(1 for r in self.requirements if r.role == "precondition")
        return counts

    def mismatches(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """``(id, actual, expected)`` for every requirement whose verdict the manifest does not accept."""
        out = []
        for r in self.requirements:
            want = self.expected.get(r.id)
            got = r.verdict.value if r.verdict is not None else "precondition"
            if want is not None and got not in want:
                out.append((r.id, got, want))
        return out


def build_report(spec_name: str, spec_title: str, spec_file: str, target: str, budget_s: float,
                 results: list[RequirementResult], elapsed_s: float,
                 expected: dict[str, tuple[str, ...]] | None = None) -> GapReport:
    """Assemble a :class:`GapReport` (adds the tool versions)."""
    tools = {d: _version(d) for d in ("evalgap", "crosshair-tool", "icontract", "z3-solver", "lark")}
    return GapReport(spec_name, spec_title, spec_file, target, budget_s, tuple(results), elapsed_s, tools,
                     dict(expected or {}))


def exit_code(report: GapReport) -> int:
    """0 nothing refuted and nothing unknown; 1 something refuted (or an analysis error: conflict,
    unrealizable contract); 3 nothing refuted but something unknown. Analysis unknowns (requirements
    outside the Z3 fragment) do not change the exit code of ``check``; ``analyze`` reports them with 3."""
    verdicts = {r.verdict for r in report.requirements}
    if Verdict.REFUTED in verdicts:
        return EXIT_REFUTED
    if report.analysis is not None and any(f.severity == "error" for f in report.analysis.findings):
        return EXIT_REFUTED  # a conflict, an unrealizable contract or a config violation in the spec
    if Verdict.UNKNOWN in verdicts:
        return EXIT_UNKNOWN
    return EXIT_OK
