"""Render a :class:`~evalgap.verifier.gap.GapReport` as JSON (schema_version 1.0)."""

from __future__ import annotations

import json
from typing import Any

from evalgap.verifier.findings import EngineVerdict, RequirementResult
from evalgap.verifier.gap import SCHEMA_VERSION, GapReport

__all__ = ["to_dict", "render_json"]


def _verdict(v: EngineVerdict) -> dict[str, Any]:
    b = v.budget
    return {
        "engine": v.engine,
        "verdict": v.verdict.value,
        "reason": v.reason,
        "budget": {"seconds": b.seconds, "used_s": b.used_s, "paths": b.paths, "examples": b.examples},
        "counterexample": v.counterexample,
        "arguments": {name: src for name, src in v.args} if v.args else None,
        "elapsed_s": round(v.elapsed_s, 3),
    }


def _requirement(r: RequirementResult, expected: tuple[str, ...] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": r.id,
        "prose": r.prose,
        "location": r.location,
        "formalization": r.formalization,
        "role": r.role,
        "category": r.category,
        "informal_reason": r.informal_reason,
        "formal_text": r.formal_text,
        "function": r.function,
        "narrowed_by": list(r.narrowed_by),
        "verdicts": [_verdict(v) for v in r.verdicts],
        "verdict": r.verdict.value if r.verdict is not None else None,
        "counterexample": r.counterexample,
        "elapsed_s": round(r.elapsed_s, 3),
    }
    if expected is not None:
        out["expected"] = list(expected)
    return out


def to_dict(report: GapReport) -> dict[str, Any]:
    """The report as plain JSON-ready data (with an ``analysis`` key when the Z3 analysis ran)."""
    out = {
        "schema_version": SCHEMA_VERSION,
        "spec": {"name": report.spec_name, "title": report.spec_title, "file": report.spec_file},
        "target": report.target,
        "budget_s": report.budget_s,
        "summary": report.summary(),
        "requirements": [_requirement(r, report.expected.get(r.id) if report.expected else None)
                         for r in report.requirements],
        "elapsed_s": round(report.elapsed_s, 3),
        "tools": report.tools,
    }
    if report.analysis is not None:
        from evalgap.verifier.report_analysis import analysis_to_dict

        out["analysis"] = analysis_to_dict(report.analysis)
    return out


def render_json(report: GapReport) -> str:
    """Indented JSON text with a trailing newline."""
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"
