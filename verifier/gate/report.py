"""Render a :class:`~evalgap.verifier.gate.run.GateReport`: text (terminal), JSON (``gate_schema_version``
1.1), Markdown (a pull-request comment) and SARIF 2.1.0 (code scanning).

These are the gate's own renderers: the shared report renderers (SARIF/Markdown/JUnit of ``check``) live on
another branch; once merged, the gate's SARIF and Markdown can move onto them.
"""

from __future__ import annotations

import json
from typing import Any

from evalgap.verifier.findings import RequirementResult
from evalgap.verifier.report.gap import split_location
from evalgap.verifier.analysis.gaming import RULES, GamingFinding
from evalgap.verifier.gate.model import blocks
from evalgap.verifier.gate.run import ClassifiedDifference, GateReport, gate_exit_code
from evalgap.specs_lang.diagnostics import GATE_REQUIREMENT_REFUTED, GATE_UNEXPLAINED_CHANGE

__all__ = ["gate_to_dict", "render_gate_json", "render_gate_text", "render_gate_markdown", "render_gate_sarif",
           "render_gate_junit", "GATE_SCHEMA_VERSION"]

GATE_SCHEMA_VERSION = "1.2"  # 1.1: requirements[].head_bounds; 1.2: baseline, requirements[].known/blocks/
#   differences (the ones breaking it), differences[].found_by, behavior_diffs[].dropped/hypothesis


def short_rev(rev: str) -> str:
    """A revision as printed: a commit hash cut to 12 characters (base and head alike), anything else (``patch:FILE``,
    ``staged``) as it is."""
    if len(rev) in (40, 64) and all(c in "0123456789abcdef" for c in rev):
        return rev[:12]
    return rev


def _verdict_text(r: RequirementResult | None) -> str:
    if r is None:
        return "-"
    if r.verdict is None:
        return "precondition"
    v = r.verdicts[0] if r.verdicts else None
    detail = ""
    if v is not None and r.counterexample:
        detail = f" ({r.counterexample})"
    elif v is not None and r.verdict.value in ("unknown", "no-counterexample"):
        detail = f" ({v.reason})"
    if r.bounds:  # a bounded proof (or bounded search) is printed with its bounds
        detail += f" within bounds: {'; '.join(r.bounds)}"
    return r.verdict.value + detail


#: Classifications listed under the requirement they break.
_BREAKS = ("breaks", "possibly-breaks")


def _grouped(report: GateReport, rid: str) -> list[ClassifiedDifference]:
    """The differences that break (or may break) requirement ``rid``."""
    return [d for d in report.differences if d.classification in _BREAKS and rid in d.explained_by]


def _gaming_dict(g: GamingFinding) -> dict[str, Any]:
    return {"code": g.code, "rule": g.rule, "path": g.path, "line": g.line, "col": g.col, "message": g.message,
            "snippet": g.snippet, "silenced": g.silenced, "silence_reason": g.silence_reason}


def _diff_dict(d: ClassifiedDifference) -> dict[str, Any]:
    return {"file": d.file, "function": d.qualname, "call": d.difference.call(d.qualname.rsplit(".", 1)[-1]),
            "arguments": dict(d.difference.args), "base": d.difference.base.describe,
            "head": d.difference.head.describe, "classification": d.classification,
            "explained_by": list(d.explained_by), "note": d.note, "found_by": d.difference.found_by}


def gate_to_dict(report: GateReport) -> dict[str, Any]:
    """The report as plain JSON-ready data."""
    return {
        "gate_schema_version": GATE_SCHEMA_VERSION,
        "repo": report.repo, "base": report.base_rev, "head": report.head_rev, "spec": report.spec_file,
        "target": report.target, "budget_s": report.budget_s, "diff_budget_s": report.diff_budget_s,
        "exit_code": gate_exit_code(report), "sandbox": report.sandbox, "baseline": report.baseline,
        "summary": {
            "changed_units": len(report.changed),
            "checked_requirements": len(report.requirements),
            "refuted_on_head": sum(1 for r in report.requirements if r.head.verdict and r.head.verdict.value == "refuted"),
            "fixed": sum(1 for r in report.requirements if r.transition == "fixed"),
            "broken": sum(1 for r in report.requirements if r.transition == "broken"),
            "unexplained_changes": len(report.unexplained()),
            "gaming_findings": len(report.active_gaming()),
            "silenced_gaming_findings": len(report.gaming) - len(report.active_gaming()),
        },
        "changed": [{"file": u.file, "unit": u.qualname, "kind": u.kind, "change": u.change,
                     "base_line": u.base_line, "head_line": u.head_line,
                     "same_signature": u.same_signature} for u in report.changed],
        "requirements": [{"id": r.id, "prose": r.prose, "transition": r.transition,
                          "head": _verdict_text(r.head), "base": _verdict_text(r.base),
                          "head_verdict": r.head.verdict.value if r.head.verdict else None,
                          "base_verdict": r.base.verdict.value if r.base and r.base.verdict else None,
                          "head_bounds": list(r.head.bounds), "known": r.known, "blocks": blocks(report, r),
                          "because": list(r.because),
                          "differences": [_diff_dict(d) for d in _grouped(report, r.id)]}
                         for r in report.requirements],
        "not_rechecked": [{"id": i, "prose": p} for i, p in report.not_rechecked],
        "behavior_diffs": [{"file": o.file, "function": o.qualname, "status": o.status, "paths": o.paths,
                            "reason": o.reason, "differences": len(o.differences), "dropped": o.dropped,
                            "hypothesis": o.hypothesis,
                            "elapsed_s": round(o.elapsed_s, 3)} for o in report.diffs],
        "differences": [_diff_dict(d) for d in report.differences],
        "gaming": [_gaming_dict(g) for g in report.gaming],
        "notes": list(report.notes),
        "elapsed_s": round(report.elapsed_s, 3),
    }


def render_gate_json(report: GateReport) -> str:
    """Indented JSON text with a trailing newline."""
    return json.dumps(gate_to_dict(report), indent=2, ensure_ascii=False) + "\n"


def render_gate_text(report: GateReport) -> str:
    """A plain-text report for a terminal."""
    out: list[str] = []
    w = out.append
    w(f"evalgap gate: {report.spec_file} on {report.target}")
    w(f"  base {short_rev(report.base_rev)}  head {short_rev(report.head_rev)}")
    w(f"  sandbox: {report.sandbox}")
    if report.baseline is not None:
        w(f"  baseline: {report.baseline} (requirements it has refuted do not block)")
    w("")
    w(f"Changed code ({len(report.changed)} unit(s)):")
    for u in report.changed:
        w(f"  {u.change:<9} {u.kind:<8} {u.file}:{u.qualname}")
    w("")
    w(f"Requirements reached by the change ({len(report.requirements)} checked, budget {report.budget_s:g} s each):")
    for r in report.requirements:
        state = r.transition + (" (baseline)" if r.known else "") + (" BLOCKS" if blocks(report, r) else "")
        w(f"  {r.id:<10} {state:<14} head: {_verdict_text(r.head)}")
        if r.base is not None:
            w(f"  {'':<10} {'':<14} base: {_verdict_text(r.base)}")
        w(f"  {'':<10} {r.prose}")
        for d in _grouped(report, r.id):
            w(f"  {'':<10} {d.classification}: {d.difference.call(d.qualname.rsplit('.', 1)[-1])} "
              f"(found by {d.difference.found_by}, replayed)")
            w(f"  {'':<10}   base: {d.difference.base.describe}")
            w(f"  {'':<10}   head: {d.difference.head.describe}")
    if report.not_rechecked:
        w(f"  not re-checked (the change does not reach them): {', '.join(i for i, _ in report.not_rechecked)}")
    w("")
    w(f"Behaviour changes (CrossHair diffbehavior {report.diff_budget_s:g} s per function, and Hypothesis; every "
      "difference replayed on both versions):")
    if not report.diffs:
        w("  no function diffed (none changed with the same signature, or see the notes below)")
    for o in report.diffs:
        w(f"  {o.file}:{o.qualname}: {o.status}" + (f" ({o.reason})" if o.reason else ""))
        if o.hypothesis and o.status == "differs":
            w(f"      Hypothesis {o.hypothesis}" + (f"; {o.dropped} CrossHair candidate(s) did not replay and were "
                                                   "dropped" if o.dropped else ""))
    for d in report.differences:
        if d.classification in _BREAKS:
            continue  # listed under the requirement it breaks
        label = d.classification.upper() if d.classification == "unexplained" else d.classification
        by = f" by {', '.join(d.explained_by)}" if d.explained_by else ""
        w(f"  - {label}{by}: {d.difference.call(d.qualname.rsplit('.', 1)[-1])}")
        w(f"      base: {d.difference.base.describe}")
        w(f"      head: {d.difference.head.describe}")
        w(f"      {d.note}")
    w("")
    w("Evaluator gaming (added lines only):")
    if not report.gaming:
        w("  none found")
    for g in report.gaming:
        state = f"silenced: {g.silence_reason}" if g.silenced else "FINDING"
        w(f"  {g.location}: {g.code} {g.rule} [{state}]")
        w(f"      {g.message}")
        if g.snippet:
            w(f"      > {g.snippet}")
    for n in report.notes:
        w(f"note: {n}")
    w("")
    w(f"exit code {gate_exit_code(report)} ({report.elapsed_s:.1f} s)")
    return "\n".join(out) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_gate_markdown(report: GateReport) -> str:
    """A Markdown summary for a pull-request comment."""
    code = gate_exit_code(report)
    status = {0: "passed", 1: "failed", 3: "inconclusive"}.get(code, "error")
    out: list[str] = []
    w = out.append
    w(f"## evalgap gate: {status}")
    w("")
    w(f"Spec `{report.spec_file}`, target `{report.target}`, base `{short_rev(report.base_rev)}`, "
      f"head `{short_rev(report.head_rev)}`.")
    w(f"sandbox: {report.sandbox}")
    w("")
    if report.requirements:
        w("| requirement | change | head | base |")
        w("|---|---|---|---|")
        for r in report.requirements:
            w(f"| **{r.id}** {_md_escape(r.prose)} | {r.transition} | {_md_escape(_verdict_text(r.head))} | "
              f"{_md_escape(_verdict_text(r.base))} |")
        w("")
    else:
        w("No requirement is reached by the changed code.")
        w("")
    unexplained = report.unexplained()
    if report.differences:
        w(f"### Behaviour changes ({len(unexplained)} unexplained)")
        w("")
        for d in report.differences:
            by = f" by {', '.join(d.explained_by)}" if d.explained_by else ""
            w(f"- **{d.classification}**{by}: `{d.difference.call(d.qualname.rsplit('.', 1)[-1])}`: base "
              f"{d.difference.base.describe}; head {d.difference.head.describe}")
        w("")
    if report.gaming:
        w(f"### Evaluator gaming ({len(report.active_gaming())} finding(s))")
        w("")
        for g in report.gaming:
            state = f" (silenced: {g.silence_reason})" if g.silenced else ""
            w(f"- `{g.location}` **{g.code}** {g.rule}{state}: {g.message}")
        w("")
    for n in report.notes:
        w(f"> note: {n}")
    if report.notes:
        w("")
    w(f"<sub>exit code {code}; CrossHair budget {report.budget_s:g} s per requirement, "
      f"{report.diff_budget_s:g} s per behaviour diff; 'no-counterexample' is not a proof.</sub>")
    return "\n".join(out) + "\n"


def render_gate_sarif(report: GateReport) -> str:
    """SARIF 2.1.0 through the one SARIF writer (:func:`evalgap.verifier.report.sarif.sarif_log`): refuted
    requirements, unexplained behaviour changes and gaming findings (EG4xx) as results. Every result has a
    location (GitHub code scanning refuses one without): a requirement's line in the spec (repository-relative),
    with the changed functions that reach it as further locations; a difference's function; a finding's line."""
    from evalgap.verifier.report.sarif import sarif_location, sarif_log, sarif_rule

    rules = [sarif_rule(r.code, r.name, r.summary, f"{r.summary}. Example flagged: {r.example}", "error")
             for r in RULES.values()]
    rules += [sarif_rule(GATE_REQUIREMENT_REFUTED, "requirement-refuted",
                         "a requirement reached by the change is refuted on head",
                         "A requirement the change reaches is refuted on head, with a replayed counterexample.",
                         "error"),
              sarif_rule(GATE_UNEXPLAINED_CHANGE, "unexplained-behaviour-change",
                         "base and head differ on an input and no requirement explains it",
                         "Base and head return different results on an input and no requirement explains the "
                         "change.", "warning")]
    results: list[dict[str, Any]] = []
    lines = {(u.file, u.qualname): u.head_line for u in report.changed}
    for g in report.gaming:
        res: dict[str, Any] = {"ruleId": g.code, "level": "error", "message": {"text": g.message},
                               "locations": [sarif_location({"uri": g.path}, g.line, g.col)],
                               "partialFingerprints": {"gaming/v1": f"{g.path}:{g.code}:{g.snippet}"}}
        if g.silenced:
            res["suppressions"] = [{"kind": "inSource", "justification": g.silence_reason or ""}]
        results.append(res)
    for r in report.requirements:
        if r.head.verdict is not None and r.head.verdict.value == "refuted":
            _, line, col = split_location(r.head.location)
            locs = [sarif_location({"uri": report.spec_file}, line, col, f"requirement {r.id} in the spec")]
            for unit in r.because:
                file, _, qual = unit.partition(":")
                if qual and not file.startswith("spec"):
                    locs.append(sarif_location({"uri": file}, lines.get((file, qual), 1) or 1,
                                               message=f"changed function {qual}", logical=qual))
            results.append({"ruleId": GATE_REQUIREMENT_REFUTED, "level": "error",
                            "message": {"text": f"{r.id} refuted ({r.transition}): {r.prose} "
                                                f"Counterexample: {r.head.counterexample}"},
                            "locations": locs,
                            "partialFingerprints": {"requirementId/v1": f"{report.spec_file}/{r.id}"}})
    for d in report.unexplained():
        line = lines.get((d.file, d.qualname), 1) or 1
        results.append({"ruleId": GATE_UNEXPLAINED_CHANGE, "level": "warning",
                        "message": {"text": f"unexplained behaviour change of {d.qualname}: "
                                            f"{d.difference.call(d.qualname.rsplit('.', 1)[-1])}: base "
                                            f"{d.difference.base.describe}; head {d.difference.head.describe}"},
                        "locations": [sarif_location({"uri": d.file}, line, logical=d.qualname)]})
    doc = sarif_log(rules, results, {"sandbox": report.sandbox, "base": report.base_rev, "head": report.head_rev},
                    f"evalgap/gate/{report.spec_file}")
    return json.dumps(doc, indent=2) + "\n"


def render_gate_junit(report: GateReport) -> str:
    """JUnit XML in ``check``'s dialect (:func:`evalgap.verifier.report.junit.requirement_case`: classname
    ``evalgap.<spec name>``, name the requirement ID, the spec's repository-relative ``file`` and line, the
    verdict and budget in the message and properties, plus ``transition`` and ``base_verdict``): one test
    case per reached requirement (failure when refuted on head, skipped when unknown), per gaming finding
    (classname ``evalgap.<spec name>.gaming``; failure unless silenced, then skipped with the reason) and per
    unexplained behaviour change (``evalgap.<spec name>.behaviour``; failure with ``fail_on_unexplained``,
    else skipped)."""
    from pathlib import PurePosixPath

    from evalgap.verifier.report.junit import JUnitCase, junit_document, relative_file, requirement_case

    suite = f"evalgap.{report.spec_name or PurePosixPath(report.spec_file).stem}"
    spec_file = relative_file(report.spec_file)
    cases: list[JUnitCase] = []
    for r in report.requirements:
        _, line, _ = split_location(r.head.location)
        note = f"gate: {r.transition}; head: {_verdict_text(r.head)}; base: {_verdict_text(r.base)}"
        base = (r.base.verdict.value if r.base.verdict else "precondition") if r.base is not None else "-"
        cases.append(requirement_case(r.head, suite, report.budget_s, spec_file, line or None,
                                      (("transition", r.transition), ("base_verdict", base)), note))
    for g in report.gaming:
        name = f"{g.code} {g.location}"
        if g.silenced:
            cases.append(JUnitCase(f"{suite}.gaming", name, "skipped", "silenced: " + (g.silence_reason or ""),
                                   file=g.path, line=g.line or None))
        else:
            cases.append(JUnitCase(f"{suite}.gaming", name, "failure", g.rule, "gaming", text=g.message,
                                   file=g.path, line=g.line or None))
    for i, d in enumerate(report.unexplained(), 1):
        text = (f"{d.difference.call(d.qualname.rsplit('.', 1)[-1])}: base {d.difference.base.describe}; "
                f"head {d.difference.head.describe}")
        name = f"{d.file}:{d.qualname} #{i}"
        if report.fail_on_unexplained:
            cases.append(JUnitCase(f"{suite}.behaviour", name, "failure", "unexplained behaviour change",
                                   "unexplained", text=text, file=d.file))
        else:
            cases.append(JUnitCase(f"{suite}.behaviour", name, "skipped",
                                   f"unexplained behaviour change (not blocking): {text}", file=d.file))
    props = (("command", "gate"), ("spec", spec_file), ("target", report.target),
             ("budget_s", f"{report.budget_s:g}"), ("sandbox", report.sandbox), ("base", report.base_rev),
             ("head", report.head_rev))
    return junit_document(suite, cases, props, report.elapsed_s)
