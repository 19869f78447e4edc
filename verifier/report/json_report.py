"""Render a :class:`~evalgap.verifier.report.gap.GapReport` as JSON (``schema_version`` 1.3: 1.2 plus ``strength``
and the ``weak`` flag; 1.2 added ``bounds``).

The shape is fixed by the JSON Schema shipped as package data (``verifier/report/schema/gap-report.schema.json``,
printed by ``evalgap schema``): every property is required (absent values are ``null``) and no other
property is allowed. :func:`load_report` reads and validates a report file (for ``explain`` and ``diff``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from evalgap.verifier.errors import UsageError
from evalgap.verifier.findings import EngineVerdict, RequirementResult, SpecFinding, Strength
from evalgap.verifier.report.gap import FLAGS, SCHEMA_VERSION, GapReport
from evalgap.specs_lang.errors import SpecError
from evalgap.specs_lang.textfile import MAX_TEXT_BYTES, read_text

__all__ = ["to_dict", "render_json", "schema_text", "load_schema", "validate_report", "load_report"]


def _verdict(v: EngineVerdict) -> dict[str, Any]:
    b = v.budget
    return {
        "engine": v.engine,
        "verdict": v.verdict.value,
        "reason": v.reason,
        "budget": {"seconds": b.seconds, "used_s": b.used_s, "paths": b.paths, "examples": b.examples,
                   "rejected": b.rejected, "seed": b.seed, "hash_seeds": list(b.hash_seeds)},
        "counterexample": v.counterexample,
        "arguments": {name: src for name, src in v.args} if v.args else None,
        "assumptions": list(v.assumptions),
        "bounds": list(v.bounds),
        "elapsed_s": round(v.elapsed_s, 3),
        "reproducer": v.reproducer,
        "cached": v.cached,
    }


def _strength(s: Strength | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {"mutants": s.mutants, "killed": s.killed, "equivalent": s.equivalent, "inconclusive": s.inconclusive,
            "scored": s.scored, "ratio": s.ratio, "weak": s.weak, "weak_below": s.weak_below,
            "survivors": list(s.survivors)}


def _requirement(r: RequirementResult, expected: tuple[str, ...] | None) -> dict[str, Any]:
    return {
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
        "bounds": list(r.bounds),
        "verdicts": [_verdict(v) for v in r.verdicts],
        "verdict": r.verdict.value if r.verdict is not None else None,
        "counterexample": r.counterexample,
        "disagreement": r.disagreement,
        "elapsed_s": round(r.elapsed_s, 3),
        "target_functions": list(r.target_functions),
        "tests": [{"test": t.test, "outcome": t.outcome, "functions": list(t.functions)} for t in r.tests],
        "smells": [{"code": s.code, "phrase": s.phrase, "start": s.start, "end": s.end, "message": s.message}
                   for s in r.smells],
        "flags": list(r.flags),
        "strength": _strength(r.strength),
        "expected": list(expected) if expected is not None else None,
    }


def _finding(f: SpecFinding) -> dict[str, Any]:
    return {"code": f.code, "kind": f.kind, "severity": f.level, "requirement_ids": list(f.requirement_ids),
            "message": f.message, "detail": f.detail}


def to_dict(report: GapReport) -> dict[str, Any]:
    """The report as plain JSON-ready data (valid against :func:`load_schema`)."""
    suite = report.tests
    return {
        "schema_version": SCHEMA_VERSION,
        "spec": {"name": report.spec_name, "title": report.spec_title, "file": report.spec_file},
        "target": report.target,
        "target_file": report.target_file,
        "budget_s": report.budget_s,
        "summary": report.summary(),
        "coverage": report.coverage(),
        "flag_counts": report.flag_counts(),
        "smell_counts": report.smell_counts(),
        "requirements": [_requirement(r, report.expected.get(r.id) if report.expected else None)
                         for r in report.requirements],
        "spec_findings": [_finding(f) for f in report.spec_findings],
        "tests": None if suite is None else {
            "path": suite.path, "exit_status": suite.exit_status, "elapsed_s": round(suite.elapsed_s, 3),
            "counts": suite.counts(),
            "tests": [{"nodeid": t.nodeid, "outcome": t.outcome, "functions": list(t.functions)}
                      for t in suite.tests]},
        "function_lines": dict(report.function_lines),
        "flags_legend": dict(FLAGS),
        "elapsed_s": round(report.elapsed_s, 3),
        "tools": report.tools,
        "sandbox": report.sandbox,
    }


def render_json(report: GapReport) -> str:
    """Indented JSON text with a trailing newline."""
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def schema_text() -> str:
    """The JSON Schema (draft 2020-12) of the report, as shipped in the package."""
    # a plain path: evalgap.verifier is a namespace package under an editable install, where
    # importlib.resources cannot read data files
    return (Path(__file__).parent / "schema" / "gap-report.schema.json").read_text(encoding="utf-8")


def load_schema() -> dict[str, Any]:
    """The report's JSON Schema as a dict."""
    data: dict[str, Any] = json.loads(schema_text())
    return data


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema())


def validate_report(data: object) -> list[str]:
    """Problems of ``data`` against the schema: ``"path: message"`` strings, empty when valid.

    Needs the ``jsonschema`` package (a dependency of evalgap).
    """
    validator = _validator()
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
            for e in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))]


def load_report(path: Path) -> dict[str, Any]:
    """Read a JSON gap report written by ``evalgap check --format json`` and validate it.

    Raises:
        UsageError: unreadable, not JSON, or not valid against the schema (the first problems listed).
    """
    try:
        text = read_text(path, "report", 4 * MAX_TEXT_BYTES)
        try:
            data = json.loads(text)
        except RecursionError:
            raise UsageError(f"{path}: not a gap report: arrays or objects nested too deeply") from None
    except SpecError as exc:
        raise UsageError(f"{exc.span}: {exc.diagnostics[0].message}") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not JSON ({exc})") from None
    problems = validate_report(data)
    if problems:
        raise UsageError(f"{path}: not a gap report of schema {SCHEMA_VERSION}: " + "; ".join(problems[:3]))
    assert isinstance(data, dict)
    seen: set[str] = set()
    for r in data["requirements"]:  # `check` never writes an ID twice; explain/diff would pick one silently
        if r["id"] in seen:
            raise UsageError(f"{path}: requirement {r['id']!r} appears more than once; a gap report lists each "
                             "requirement once (was the file edited or two reports concatenated?)")
        seen.add(r["id"])
    return data
