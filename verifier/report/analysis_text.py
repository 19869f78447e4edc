"""Render an :class:`~evalgap.verifier.analysis.spec_findings.AnalysisReport` as text or JSON-ready data."""

from __future__ import annotations

import json
from typing import Any, TextIO

from evalgap.verifier.analysis.spec_findings import AnalysisReport, SpecFinding
from evalgap.specs_lang.diagnostics import NOT_IN_FRAGMENT
from evalgap.verifier.findings import NOTE_KINDS

__all__ = ["analysis_to_dict", "render_analysis_text", "render_analysis_json"]

_MARK = {"error": "ERROR", "warning": "warning", "info": "info", "unknown": "unknown"}


def _finding(f: SpecFinding) -> dict[str, Any]:
    return {"code": f.code, "kind": f.kind, "severity": f.severity, "scope": f.scope,
            "requirements": list(f.requirements), "message": f.message, "details": list(f.details),
            "witness": f.witness, "elapsed_s": round(f.elapsed_s, 3)}


def analysis_to_dict(report: AnalysisReport) -> dict[str, Any]:
    """Plain data: spec, timeout, counts per kind, findings, elapsed seconds (and the config file)."""
    out: dict[str, Any] = {"spec": {"name": report.spec_name, "file": report.spec_file},
                           "timeout_s": report.timeout_s, "summary": report.counts(),
                           "findings": [_finding(f) for f in report.findings],
                           "elapsed_s": round(report.elapsed_s, 3)}
    if report.config_file is not None:
        out["config_file"] = report.config_file
    return out


def render_analysis_json(report: AnalysisReport) -> str:
    """Indented JSON with a trailing newline."""
    return json.dumps(analysis_to_dict(report), indent=2, ensure_ascii=False) + "\n"


def render_analysis_text(report: AnalysisReport, stream: TextIO, heading: bool = True,
                         group_outside: bool = False) -> None:
    """One block per finding: ``CODE severity kind [scope] message`` then indented details.

    Args:
        report: the analysis to render.
        stream: where the text goes.
        heading: write the first line naming the spec and the solver timeout.
        group_outside: write the EG308 findings (requirements outside the Z3 fragment) as one line per scope
            listing their IDs instead of one line each (the gap report's compact form).
    """
    if heading:
        what = f"configuration {report.config_file}" if report.config_file else "requirements"
        stream.write(f"evalgap analysis of the {what}: {report.spec_name} ({report.spec_file}), "
                     f"solver timeout {report.timeout_s:g} s per query\n")
    outside: dict[str, list[str]] = {}
    for f in report.findings:
        if group_outside and f.code == NOT_IN_FRAGMENT and not f.details:
            outside.setdefault(f.scope, []).extend(f.requirements)
            continue
        stream.write(f"{f.code} {_MARK[f.severity]:7} {f.kind:12} [{f.scope}] {f.message}\n")
        for d in f.details:
            stream.write(f"      {d}\n")
        if f.witness and f.kind in ("consistent", "repair"):
            stream.write(f"      e.g. {f.witness}\n" if f.kind == "consistent" else "")
    for scope, ids in outside.items():
        stream.write(f"{NOT_IN_FRAGMENT} {_MARK['unknown']:7} {'unknown':12} [{scope}] not analysed, outside the Z3 fragment "
                     f"(`evalgap analyze` names the construct): {', '.join(ids)}\n")
    c = report.counts()
    real = [f"{n} {k}" for k, n in c.items() if n and k not in NOTE_KINDS]
    notes = [f"{n} {k}" for k, n in c.items() if n and k in NOTE_KINDS]
    if not real and not notes:
        text = "analysis: nothing to analyse"
    else:
        n_real = sum(n for k, n in c.items() if k not in NOTE_KINDS)
        text = ((f"analysis: {n_real} spec finding(s) ({', '.join(real)})" if real else "analysis: no spec findings")
                + (f"; notes: {', '.join(notes)}" if notes else ""))
    stream.write(text + f"  [{report.elapsed_s:.1f} s]\n")
