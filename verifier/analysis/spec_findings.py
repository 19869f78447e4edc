"""Findings about the spec itself (Z3 analysis), distinct from the verdicts on code.

Kinds (fixed words): ``consistent``, ``conflict``, ``vacuous``, ``redundant``, ``realizable``,
``unrealizable``, ``witness``, ``violation``, ``repair``, ``approximated``, ``unknown``. Codes are ``EG3xx``
(:data:`ANALYSIS_CODES`, rows of the one diagnostics table; docs/analysis.md). Severity: ``error`` (a
conflict, an unrealizable contract or a config violation: exit code 1), ``warning`` (vacuity, weak-spec
witnesses), ``info`` (consistent, redundant, realizable, a proposed repair, an approximation, and a
weak-spec query the solver could not decide: a search for weaknesses, not a property of a requirement),
``unknown`` (not in the Z3 fragment, or the solver gave up on consistency, vacuity or realizability: exit
code 3 when nothing worse).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from evalgap.verifier.findings import SpecFinding
from evalgap.specs_lang.errors import CODES

__all__ = ["SpecFinding", "AnalysisReport", "ANALYSIS_CODES", "FINDING_KINDS", "analysis_exit_code",
           "report_to_dict", "report_from_dict"]

#: EG3xx codes with their one-line meaning (the rows of the one diagnostics table,
#: :data:`evalgap.specs_lang.errors.CODES`).
ANALYSIS_CODES: dict[str, str] = {k: v for k, v in CODES.items() if k.startswith("EG3")}

FINDING_KINDS = ("consistent", "conflict", "vacuous", "redundant", "realizable", "unrealizable", "witness",
                 "violation", "repair", "approximated", "unknown")


@dataclass(frozen=True)
class AnalysisReport:
    """All findings of the Z3 analysis of one spec (and, for ``check-config``, one configuration).

    Attributes:
        spec_name, spec_file: the spec.
        findings: in order of scope, then query.
        timeout_s: the per-query solver timeout.
        elapsed_s: wall-clock seconds of the analysis.
        config_file: the configuration file checked, if any.
    """

    spec_name: str
    spec_file: str
    findings: tuple[SpecFinding, ...]
    timeout_s: float
    elapsed_s: float
    config_file: str | None = None
    tools: dict[str, str] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Number of findings per kind (every kind present, zeros included)."""
        out = {k: 0 for k in FINDING_KINDS}
        for f in self.findings:
            out[f.kind] += 1
        return out

    def of_kind(self, kind: str) -> list[SpecFinding]:
        """The findings of one kind."""
        return [f for f in self.findings if f.kind == kind]


def analysis_exit_code(report: AnalysisReport) -> int:
    """1 for an error finding (conflict, unrealizable, config violation), else 3 for an unknown, else 0."""
    sev = {f.severity for f in report.findings}
    if "error" in sev:
        return 1
    if "unknown" in sev:
        return 3
    return 0


def report_to_dict(report: AnalysisReport) -> dict[str, Any]:
    """JSON-ready form of ``report`` (for the result cache; inverse: :func:`report_from_dict`)."""
    return asdict(report)


def report_from_dict(d: dict[str, Any]) -> AnalysisReport:
    """Rebuild an :class:`AnalysisReport`.

    Raises:
        KeyError, TypeError, ValueError: a malformed dict (e.g. an unknown finding kind or severity).
    """
    findings = []
    for f in d["findings"]:
        fields = dict(f)
        fields["requirements"] = tuple(str(r) for r in fields["requirements"])
        fields["details"] = tuple(str(x) for x in fields.get("details", ()))
        finding = SpecFinding(**fields)
        if finding.kind not in FINDING_KINDS or finding.severity not in ("error", "warning", "info", "unknown"):
            raise ValueError(f"bad finding kind/severity {finding.kind}/{finding.severity}")
        findings.append(finding)
    return AnalysisReport(str(d["spec_name"]), str(d["spec_file"]), tuple(findings), float(d["timeout_s"]),
                          float(d["elapsed_s"]), d.get("config_file"), dict(d.get("tools") or {}))
