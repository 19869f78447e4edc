"""Render a :class:`~evalgap.verifier.report.gap.GapReport` as SARIF 2.1.0 (OASIS Static Analysis Results
Interchange Format), for code-scanning views.

One result per ``refuted`` (rule EG501, level ``error``) or ``unknown`` (rule EG502, level ``warning``)
requirement, and per bounded proof (a ``verified`` with bounds: rule EG503, level ``note``, the bounds in
the message and in ``properties.bounds``). Its first location is the requirement in the spec (line and column); the following ones are
the target functions the requirement exercises (the ``def`` line, with a logical location naming the
function). File paths under the current directory are relative to ``%SRCROOT%`` (declared in
``originalUriBaseIds``); others are absolute ``file://`` URIs. Validated in the tests against the official
schema (sarif-schema-2.1.0.json).
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import REPORT_CODES, GapReport, split_location, verdict_label
from evalgap.specs_lang.diagnostics import REQUIREMENT_BOUNDED, REQUIREMENT_REFUTED, REQUIREMENT_UNKNOWN

__all__ = ["render_sarif", "to_sarif"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_RULES = ((REQUIREMENT_REFUTED, "RefutedRequirement", "error"), (REQUIREMENT_UNKNOWN, "UnknownRequirement", "warning"),
          (REQUIREMENT_BOUNDED, "BoundedProof", "note"))


def _artifact(path: str, root: Path) -> dict[str, str]:
    p = Path(path)
    try:
        rel = p.resolve().relative_to(root)
        return {"uri": rel.as_posix(), "uriBaseId": "%SRCROOT%"}
    except ValueError:
        return {"uri": p.resolve().as_uri()}


def _result(r: RequirementResult, report: GapReport, root: Path) -> dict[str, Any]:
    refuted = r.verdict is Verdict.REFUTED
    rule = 0 if refuted else (1 if r.verdict is Verdict.UNKNOWN else 2)
    file, line, col = split_location(r.location)
    region: dict[str, int] = {"startLine": max(1, line)}
    if col:
        region["startColumn"] = col
    reasons = "; ".join(f"{v.engine}: {v.reason}" for v in r.verdicts)
    if refuted:
        text = f"{r.id} refuted: {r.prose} Counterexample: {r.counterexample or 'see evidence'}. {reasons}"
    elif rule == 1:
        text = f"{r.id} unknown: {r.prose} {reasons}"
    else:
        text = f"{r.id} {verdict_label(r)}: {r.prose} {reasons}"
    locations: list[dict[str, Any]] = [{
        "physicalLocation": {"artifactLocation": _artifact(file, root), "region": region},
        "message": {"text": f"requirement {r.id} in the spec"}}]
    if report.target_file:
        for fn in r.target_functions:
            fline = report.function_lines.get(fn)
            if fline:
                locations.append({
                    "physicalLocation": {"artifactLocation": _artifact(report.target_file, root),
                                         "region": {"startLine": fline}},
                    "logicalLocations": [{"fullyQualifiedName": fn, "kind": "function"}],
                    "message": {"text": f"target function {fn}"}})
    return {
        "ruleId": _RULES[rule][0], "ruleIndex": rule, "level": _RULES[rule][2], "message": {"text": text},
        "locations": locations,
        "partialFingerprints": {"requirementId/v1": f"{report.spec_name}/{r.id}"},
        "properties": {"requirementId": r.id, "verdict": r.verdict.value if r.verdict else None,
                       "flags": list(r.flags), "counterexample": r.counterexample, "bounds": list(r.bounds)},
    }


def to_sarif(report: GapReport, root: Path | None = None) -> dict[str, Any]:
    """The SARIF log as a dict.

    Args:
        report: the gap report.
        root: the folder ``%SRCROOT%`` stands for (default: the current directory).
    """
    base = (root or Path.cwd()).resolve()
    try:
        version = metadata.version("evalgap")
    except metadata.PackageNotFoundError:
        version = "0"
    rules = [{"id": code, "name": name, "shortDescription": {"text": REPORT_CODES[code]},
              "defaultConfiguration": {"level": level},
              "help": {"text": "Verdicts, flags and codes: docs/verdicts.md in the evalgap repository."}}
             for code, name, level in _RULES]
    results = [_result(r, report, base) for r in report.requirements
               if r.verdict in (Verdict.REFUTED, Verdict.UNKNOWN) or "bounded-proof" in r.flags]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "evalgap", "version": version, "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": base.as_uri() + "/"}},
            "results": results,
            "properties": {"spec": report.spec_name, "target": report.target, "budgetSeconds": report.budget_s,
                           "sandbox": report.sandbox},
        }],
    }


def render_sarif(report: GapReport) -> str:
    """SARIF 2.1.0 JSON text with a trailing newline."""
    return json.dumps(to_sarif(report), indent=2, ensure_ascii=False) + "\n"
