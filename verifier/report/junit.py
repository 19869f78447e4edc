"""Render a :class:`~evalgap.verifier.report.gap.GapReport` as JUnit XML (one ``testcase`` per requirement).

``refuted`` is a ``failure`` (message: the counterexample), ``unknown`` and ``not-formalized`` are
``skipped`` with the reason; ``verified``, ``no-counterexample`` and preconditions pass. The verdict (and for
``no-counterexample`` the budget) is in the test case name, so a bounded pass never reads as a proof in a CI
test view: ``KV-2 [no-counterexample within 2 s]``; a bounded proof names its bounds there too
(``MT-1 [verified within bounds: call sequence: ...]``) and in ``system-out`` (``bound: ...`` lines).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Sequence

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import GapReport, split_location, verdict_label

__all__ = ["render_junit", "case_name", "JUnitCase", "junit_document"]


@dataclass(frozen=True)
class JUnitCase:
    """One ``testcase`` of :func:`junit_document`.

    Attributes:
        classname, name: the case's identity in CI test views.
        outcome: ``passed``, ``failure`` or ``skipped``.
        message: the failure's or skip's message attribute; kind: the failure's ``type``.
        text: the failure's body; system_out: the ``system-out`` text ('' for none).
        file, line: where the case is defined (omitted when None); time_s: seconds.
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


def case_name(r: RequirementResult, budget_s: float) -> str:
    """``ID [verdict]`` with the budget for bounded verdicts (``KV-2 [no-counterexample within 2 s]``) and the
    bounds of a bounded proof (``MT-1 [verified within bounds: ...]``)."""
    if r.verdict is None:
        return f"{r.id} [precondition]"
    if r.verdict is Verdict.NO_COUNTEREXAMPLE:
        budgets = [v.budget.seconds for v in r.verdicts if v.budget.seconds is not None]
        examples = [v.budget.examples for v in r.verdicts if v.budget.examples is not None]
        within = f"{budgets[0]:g} s" if budgets else (f"{examples[0]} examples" if examples else
                                                       f"{budget_s:g} s")
        return f"{r.id} [no-counterexample within {within}" + (f"; {'; '.join(r.bounds)}]" if r.bounds else "]")
    if r.bounds:
        return f"{r.id} [{verdict_label(r)}]"
    return f"{r.id} [{r.verdict.value}]"


def render_junit(report: GapReport) -> str:
    """JUnit XML text (one ``testsuite`` named after the spec) through :func:`junit_document`."""
    cases = []
    for r in report.requirements:
        file, line, _ = split_location(r.location)
        reasons = "; ".join(f"{v.engine}: {v.reason}" for v in r.verdicts)
        outcome, message, kind, text = "passed", "", "", ""
        if r.verdict is Verdict.REFUTED:
            outcome, kind, text = "failure", "refuted", f"{r.prose}\n{reasons}"
            message = f"counterexample: {r.counterexample}" if r.counterexample else "refuted"
        elif r.verdict is Verdict.UNKNOWN:
            outcome, message = "skipped", f"unknown: {reasons}"
        elif r.verdict is Verdict.NOT_FORMALIZED:
            outcome, message = "skipped", f"not-formalized ({r.category}): {r.informal_reason}"
        out = "\n".join([r.prose, *(f"flag: {f}" for f in r.flags), *(f"bound: {b}" for b in r.bounds), reasons])
        cases.append(JUnitCase(f"evalgap.{report.spec_name}", case_name(r, report.budget_s), outcome, message, kind,
                               text, out, file, line, r.elapsed_s))
    props = (("spec", report.spec_file), ("target", report.target), ("budget_s", f"{report.budget_s:g}"),
             ("sandbox", report.sandbox))
    return junit_document(f"evalgap.{report.spec_name}", cases, props, report.elapsed_s)
