"""Render a :class:`~evalgap.verifier.report.gap.GapReport` as JUnit XML (one ``testcase`` per requirement).

``refuted`` is a ``failure`` (message: the counterexample), ``unknown`` and ``not-formalized`` are
``skipped`` with the reason; ``verified``, ``no-counterexample`` and preconditions pass. The verdict (and for
``no-counterexample`` the budget) is in the test case name, so a bounded pass never reads as a proof in a CI
test view: ``KV-2 [no-counterexample within 2 s]``; a bounded proof names its bounds there too
(``MT-1 [verified within bounds: call sequence: ...]``) and in ``system-out`` (``bound: ...`` lines).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import GapReport, split_location, verdict_label

__all__ = ["render_junit", "case_name"]


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
    """JUnit XML text (one ``testsuite`` named after the spec) with an XML declaration."""
    s = report.summary()
    suite = ET.Element("testsuite", {
        "name": f"evalgap.{report.spec_name}", "tests": str(len(report.requirements)),
        "failures": str(s["refuted"]), "errors": "0", "skipped": str(s["unknown"] + s["not-formalized"]),
        "time": f"{report.elapsed_s:.3f}"})
    props = ET.SubElement(suite, "properties")
    for k, v in (("spec", report.spec_file), ("target", report.target), ("budget_s", f"{report.budget_s:g}"),
                 ("sandbox", report.sandbox)):
        ET.SubElement(props, "property", {"name": k, "value": v})
    for r in report.requirements:
        file, line, _ = split_location(r.location)
        case = ET.SubElement(suite, "testcase", {"classname": f"evalgap.{report.spec_name}",
                                                  "name": case_name(r, report.budget_s), "file": file,
                                                  "line": str(line), "time": f"{r.elapsed_s:.3f}"})
        reasons = "; ".join(f"{v.engine}: {v.reason}" for v in r.verdicts)
        if r.verdict is Verdict.REFUTED:
            fail = ET.SubElement(case, "failure", {"message": f"counterexample: {r.counterexample}"
                                                   if r.counterexample else "refuted", "type": "refuted"})
            fail.text = f"{r.prose}\n{reasons}"
        elif r.verdict is Verdict.UNKNOWN:
            ET.SubElement(case, "skipped", {"message": f"unknown: {reasons}"})
        elif r.verdict is Verdict.NOT_FORMALIZED:
            ET.SubElement(case, "skipped", {"message": f"not-formalized ({r.category}): {r.informal_reason}"})
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join([r.prose, *(f"flag: {f}" for f in r.flags), *(f"bound: {b}" for b in r.bounds),
                              reasons])
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
