"""Render a :class:`~evalgap.verifier.report.gap.GapReport` as JUnit XML (one ``testcase`` per requirement), and
the one JUnit dialect ``check`` and ``gate`` share.

Names are stable, so CI test history sees one test per requirement whatever its verdict or budget: the
``testsuite`` is ``evalgap.<spec name>``, each requirement's ``testcase`` has ``classname`` ``evalgap.<spec
name>`` and ``name`` the requirement ID (``KV-1``), and ``file`` is the spec relative to the current folder
(the repository root in CI; an absolute path only for a spec outside it). The verdict and the budget are data,
not part of the name: ``refuted`` is a ``failure`` whose message starts with the verdict (``refuted:
counterexample: ...``), ``unknown`` and ``not-formalized`` are ``skipped`` with the verdict and reason
(``unknown (budget 3 s): crosshair: budget exhausted``); ``verified``, ``no-counterexample`` and
preconditions pass. Every case has ``properties`` ``verdict`` (the word), ``verdict_detail`` (``no-counterexample
within 2 s``, a bounded proof's bounds: a bounded pass never reads as a proof in a CI test view),
``budget`` (``2 s`` or ``50 examples``) and, when there are any, ``bounds`` and ``flags``; ``system-out`` repeats
them as lines (``verdict: ...``, ``bound: ...``).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import GapReport, split_location, verdict_label

__all__ = ["render_junit", "verdict_detail", "JUnitCase", "junit_document", "requirement_case", "relative_file"]


@dataclass(frozen=True)
class JUnitCase:
    """One ``testcase`` of :func:`junit_document`.

    Attributes:
        classname, name: the case's identity in CI test views.
        outcome: ``passed``, ``failure`` or ``skipped``.
        message: the failure's or skip's message attribute; kind: the failure's ``type``.
        text: the failure's body; system_out: the ``system-out`` text ('' for none).
        file, line: where the case is defined (omitted when None); time_s: seconds.
        properties: ``(name, value)`` pairs written as the case's own ``properties`` (verdict, budget, ...).
    """

    classname: str
    name: str
    outcome: str = "passed"
    message: str = ""
    kind: str = ""
    text: str = ""
    system_out: str = ""
    file: str | None = None
    line: int | None = None
    time_s: float = 0.0
    properties: tuple[tuple[str, str], ...] = ()


def junit_document(suite: str, cases: Sequence[JUnitCase], properties: Sequence[tuple[str, str]],
                   time_s: float) -> str:
    """The one JUnit XML writer of evalgap (``check`` and ``gate``): a ``testsuites`` root holding one
    ``testsuite`` named ``suite`` with ``properties``, the counts and ``cases``; with an XML declaration.

    Raises:
        ValueError: a case's outcome is not ``passed``, ``failure`` or ``skipped``.
    """
    failures = sum(1 for c in cases if c.outcome == "failure")
    skipped = sum(1 for c in cases if c.outcome == "skipped")
    root = ET.Element("testsuites")
    node = ET.SubElement(root, "testsuite", {"name": suite, "tests": str(len(cases)), "failures": str(failures),
                                             "errors": "0", "skipped": str(skipped), "time": f"{time_s:.3f}"})
    props = ET.SubElement(node, "properties")
    for k, v in properties:
        ET.SubElement(props, "property", {"name": k, "value": v})
    for c in cases:
        attrs = {"classname": c.classname, "name": c.name, "time": f"{c.time_s:.3f}"}
        if c.file is not None:
            attrs["file"] = c.file
        if c.line is not None:
            attrs["line"] = str(c.line)
        case = ET.SubElement(node, "testcase", attrs)
        if c.properties:
            own = ET.SubElement(case, "properties")
            for k, v in c.properties:
                ET.SubElement(own, "property", {"name": k, "value": v})
        if c.outcome == "failure":
            fail = ET.SubElement(case, "failure", {"message": c.message, **({"type": c.kind} if c.kind else {})})
            fail.text = c.text
        elif c.outcome == "skipped":
            ET.SubElement(case, "skipped", {"message": c.message})
        elif c.outcome != "passed":
            raise ValueError(f"unknown JUnit outcome {c.outcome!r}")
        if c.system_out:
            ET.SubElement(case, "system-out").text = c.system_out
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _budget_text(r: RequirementResult, budget_s: float) -> str:
    seconds = [v.budget.seconds for v in r.verdicts if v.budget.seconds is not None]
    examples = [v.budget.examples for v in r.verdicts if v.budget.examples is not None]
    return f"{seconds[0]:g} s" if seconds else (f"{examples[0]} examples" if examples else f"{budget_s:g} s")


def verdict_detail(r: RequirementResult, budget_s: float) -> str:
    """The verdict with what bounds it: ``no-counterexample within 2 s`` (plus ``; <bound>`` for each bound),
    ``verified within bounds: ...`` for a bounded proof, ``unknown (budget 3 s)``, else the bare word
    (``refuted``, ``verified``, ``not-formalized``, ``precondition``).

    Args:
        r: the requirement's result.
        budget_s: the run's budget, CPU seconds (used when no engine verdict states its own).
    """
    if r.verdict is None:
        return "precondition"
    if r.verdict is Verdict.NO_COUNTEREXAMPLE:
        return f"no-counterexample within {_budget_text(r, budget_s)}" + (f"; {'; '.join(r.bounds)}" if r.bounds
                                                                           else "")
    if r.verdict is Verdict.UNKNOWN and r.verdicts:
        return f"unknown (budget {_budget_text(r, budget_s)})"
    return verdict_label(r)


def relative_file(path: str, root: Path | None = None) -> str:
    """``path`` relative to ``root`` (default: the current folder, the repository root in CI) when it lies
    inside it; otherwise unchanged. JUnit's ``file`` attribute then matches the repository's own paths."""
    if not os.path.isabs(path):
        return path
    base = (root or Path.cwd()).resolve()
    try:
        return Path(path).resolve().relative_to(base).as_posix()
    except ValueError:
        return path


def requirement_case(r: RequirementResult, classname: str, budget_s: float, file: str | None, line: int | None,
                     extra: Sequence[tuple[str, str]] = (), note: str = "") -> JUnitCase:
    """The ``testcase`` of one requirement result, the same for ``check`` and ``gate`` (see the module doc).

    Args:
        r: the result (the gate passes the head's).
        classname: ``evalgap.<spec name>``.
        budget_s: the run's budget, CPU seconds.
        file, line: where the requirement is written (``file`` already relative).
        extra: more properties (the gate's ``transition`` and ``base_verdict``).
        note: a line appended to the failure text and ``system-out`` (the gate's base/head summary).
    """
    reasons = "; ".join(f"{v.engine}: {v.reason}" for v in r.verdicts)
    detail = verdict_detail(r, budget_s)
    outcome, message, kind, text = "passed", "", "", ""
    if r.verdict is Verdict.REFUTED:
        outcome, kind, text = "failure", "refuted", "\n".join(x for x in (r.prose, reasons, note) if x)
        message = f"{detail}: counterexample: {r.counterexample}" if r.counterexample else detail
    elif r.verdict is Verdict.UNKNOWN:
        outcome, message = "skipped", f"{detail}: {reasons}"
    elif r.verdict is Verdict.NOT_FORMALIZED:
        outcome, message = "skipped", f"not-formalized ({r.category}): {r.informal_reason}"
    props = [("verdict", r.verdict.value if r.verdict else "precondition"), ("verdict_detail", detail),
             ("budget", _budget_text(r, budget_s))]
    if r.bounds:
        props.append(("bounds", "; ".join(r.bounds)))
    if r.flags:
        props.append(("flags", ", ".join(r.flags)))
    out = "\n".join([r.prose, f"verdict: {detail}", *(f"flag: {f}" for f in r.flags),
                     *(f"bound: {b}" for b in r.bounds), *(x for x in (reasons, note) if x)])
    return JUnitCase(classname, r.id, outcome, message, kind, text, out, file, line, r.elapsed_s,
                     (*props, *extra))


def render_junit(report: GapReport) -> str:
    """JUnit XML text (one ``testsuite`` named after the spec) through :func:`junit_document`."""
    classname = f"evalgap.{report.spec_name}"
    cases = []
    for r in report.requirements:
        file, line, _ = split_location(r.location)
        cases.append(requirement_case(r, classname, report.budget_s, relative_file(file) if file else None,
                                      line or None))
    props = (("command", "check"), ("spec", relative_file(report.spec_file)), ("target", report.target),
             ("budget_s", f"{report.budget_s:g}"), ("sandbox", report.sandbox))
    return junit_document(classname, cases, props, report.elapsed_s)
