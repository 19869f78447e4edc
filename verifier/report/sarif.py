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

__all__ = ["render_sarif", "to_sarif", "sarif_log", "sarif_rule", "sarif_location", "SARIF_SCHEMA"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _version() -> str:
    try:
        return metadata.version("evalgap")
    except metadata.PackageNotFoundError:
        return "0"


def sarif_rule(code: str, name: str, short: str, full: str, level: str | None = None) -> dict[str, Any]:
    """One ``tool.driver.rules`` entry with a ``fullDescription`` and ``help`` naming the code's entry in
    docs/diagnostics.md, as GitHub code scanning shows them (no ``helpUri``: the project has no published
    documentation address yet, and a guessed one would mislead)."""
    help_text = f"{full or short} (code {code} in docs/diagnostics.md)"
    rule: dict[str, Any] = {"id": code, "name": name, "shortDescription": {"text": short},
                            "fullDescription": {"text": full or short}, "help": {"text": help_text}}
    if level is not None:
        rule["defaultConfiguration"] = {"level": level}
    return rule


def sarif_location(artifact: dict[str, str], line: int, col: int = 0, message: str | None = None,
                   logical: str | None = None) -> dict[str, Any]:
    """A location: ``artifact`` (``{"uri": ..., "uriBaseId": ...}``), a region starting at ``line`` (at least
    1) and ``col`` (omitted when 0), an optional message and a logical location naming a function."""
    region: dict[str, int] = {"startLine": max(1, line)}
    if col:
        region["startColumn"] = col
    loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact, "region": region}}
    if logical:
        loc["logicalLocations"] = [{"fullyQualifiedName": logical, "kind": "function"}]
    if message:
        loc["message"] = {"text": message}
    return loc


def sarif_log(rules: list[dict[str, Any]], results: list[dict[str, Any]], properties: dict[str, Any],
              category: str, root: Path | None = None) -> dict[str, Any]:
    """The one SARIF 2.1.0 document writer of evalgap (``check`` and ``gate``): one run, the tool and its rules,
    ``automationDetails.id`` = ``category`` (``evalgap/check/<spec>``, ``evalgap/gate/<spec>``: the two
    uploads do not replace each other in code scanning), ``%SRCROOT%`` when ``root`` is given.

    Every result's ``ruleIndex`` is filled from ``rules``; a result whose rule is not among them is a bug
    (``ValueError``)."""
    index = {r["id"]: i for i, r in enumerate(rules)}
    for res in results:
        if res["ruleId"] not in index:
            raise ValueError(f"SARIF result for undefined rule {res['ruleId']}")
        res["ruleIndex"] = index[res["ruleId"]]
    run: dict[str, Any] = {"tool": {"driver": {"name": "evalgap", "version": _version(), "rules": rules}},
                           "automationDetails": {"id": category}, "results": results, "properties": properties}
    if root is not None:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root.as_uri() + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
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
    reasons = "; ".join(f"{v.engine}: {v.reason}" for v in r.verdicts)
    if refuted:
        text = f"{r.id} refuted: {r.prose} Counterexample: {r.counterexample or 'see evidence'}. {reasons}"
    elif rule == 1:
        text = f"{r.id} unknown: {r.prose} {reasons}"
    else:
        text = f"{r.id} {verdict_label(r)}: {r.prose} {reasons}"
    locations = [sarif_location(_artifact(file, root), line, col, f"requirement {r.id} in the spec")]
    if report.target_file:
        for fn in r.target_functions:
            fline = report.function_lines.get(fn)
            if fline:
                locations.append(sarif_location(_artifact(report.target_file, root), fline,
                                                message=f"target function {fn}", logical=fn))
    return {
        "ruleId": _RULES[rule][0], "level": _RULES[rule][2], "message": {"text": text},
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
    rules = [sarif_rule(code, name, REPORT_CODES[code], REPORT_CODES[code] + ". Verdicts, flags and codes: "
                        "docs/verdicts.md.", level) for code, name, level in _RULES]
    results = [_result(r, report, base) for r in report.requirements
               if r.verdict in (Verdict.REFUTED, Verdict.UNKNOWN) or "bounded-proof" in r.flags]
    return sarif_log(rules, results, {"spec": report.spec_name, "target": report.target,
                                      "budgetSeconds": report.budget_s, "sandbox": report.sandbox},
                     f"evalgap/check/{report.spec_name}", base)


def render_sarif(report: GapReport) -> str:
    """SARIF 2.1.0 JSON text with a trailing newline."""
    return json.dumps(to_sarif(report), indent=2, ensure_ascii=False) + "\n"
