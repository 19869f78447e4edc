"""Render a :class:`~evalgap.verifier.report.gap.GapReport` as GitHub-flavoured Markdown for a pull-request comment.

A summary line and table (one row per requirement), then a collapsible ``<details>`` block per requirement
with its prose, formal text, every engine's verdict and evidence, tests, smells and flags.
"""

from __future__ import annotations

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import FLAGS, GapReport, verdict_label

__all__ = ["render_markdown"]

_ICON = {"verified": "✅", "refuted": "❌", "no-counterexample": "🟡", "unknown": "❔", "not-formalized": "📝",
         "precondition": "➖"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _verdict_word(r: RequirementResult) -> str:
    return r.verdict.value if r.verdict is not None else "precondition"


def _details(r: RequirementResult, report: GapReport) -> list[str]:
    word = _verdict_word(r)
    out = [f"<details><summary><b>{r.id}</b> {_ICON[word]} <code>{word}</code>: {_cell(r.prose)}</summary>", ""]
    out.append(f"- location: `{r.location}`")
    form = r.formalization if r.formalization != "informal" else f"informal ({r.category}: {r.informal_reason})"
    out.append(f"- formalization: {form}")
    if r.target_functions:
        out.append(f"- target functions: {', '.join(f'`{f}`' for f in r.target_functions)}")
    if r.bounds:
        out.append(f"- **bounded by**: {_cell('; '.join(r.bounds))} (the verdict holds only within these bounds)")
    if r.strength is not None:
        out.append(f"- {'**' if r.strength.weak else ''}{_cell(r.strength.describe())}{'**' if r.strength.weak else ''}")
    if r.narrowed_by:
        out.append(f"- assuming (preconditions): {', '.join(r.narrowed_by)}")
    if r.flags:
        out.append(f"- flags: {', '.join(f'**{f}**' for f in r.flags)}")
    if r.formal_text:
        out += ["", "```", r.formal_text, "```"]
    if r.verdicts:
        out += ["", "| engine | verdict | evidence | time |", "|---|---|---|---|"]
        for v in r.verdicts:
            ev = v.reason
            if v.counterexample and v.verdict is Verdict.REFUTED:
                ev = f"counterexample `{v.counterexample}`; {ev}"
            if v.assumptions:
                ev += f" (assuming {', '.join(v.assumptions)})"
            if v.bounds:
                ev += f" (bounded by {'; '.join(v.bounds)})"
            out.append(f"| {v.engine} | `{v.verdict.value}` | {_cell(ev)} | {v.elapsed_s:.1f} s |")
    for f in report.findings_for(r.id):
        out += ["", f"Spec finding `{f.code}` **{f.kind}** ({f.level}): {_cell(f.message)}"]
    if r.tests:
        out += ["", "Tests that exercise it: " + ", ".join(f"`{t.test}` ({t.outcome})" for t in r.tests)]
    if r.smells:
        out += ["", "Requirement smells: " + "; ".join(f"*{s.code}* \u201c{s.phrase}\u201d (chars {s.start}-{s.end})"
                                                      for s in r.smells)]
    out += ["", "</details>", ""]
    return out


def render_markdown(report: GapReport) -> str:
    """The report as Markdown text (ends with a newline)."""
    s = report.summary()
    cov = report.coverage()
    lines = [f"### evalgap gap report: {report.spec_name}" + (f" ({report.spec_title})" if report.spec_title
                                                               else ""), ""]
    lines.append(f"**{s['refuted']} refuted**, {s['unknown']} unknown, {s['no-counterexample']} "
                 f"no-counterexample (bounded, budget {report.budget_s:g} CPU s per requirement: not proofs), "
                 f"{s['verified']} verified ({report.flag_counts()['bounded-proof']} only within bounds), "
                 f"{s['not-formalized']} not formalized; formalization coverage "
                 f"{cov['formalized']}/{cov['requirements']}.")
    lines.append("")
    lines.append(f"Spec `{report.spec_file}`, target `{report.target}`.")
    lines.append(f"sandbox: {report.sandbox}")
    if report.tests is not None:
        c = report.tests.counts()
        lines.append(f"Project tests `{report.tests.path}`: {c['passed']} passed, {c['failed']} failed, "
                     f"{c['error']} errors, {c['skipped']} skipped.")
    lines += ["", "| ID | verdict | flags | requirement |", "|---|---|---|---|"]
    for r in report.requirements:
        word = _verdict_word(r)
        shown = f"`{word}`" + (f" within bounds: {_cell('; '.join(r.bounds))}" if r.bounds else "")
        lines.append(f"| {r.id} | {_ICON[word]} {shown} | {', '.join(r.flags) or '-'} | {_cell(r.prose)} |")
    lines.append("")
    for f in report.real_spec_findings():
        lines.append(f"- spec finding `{f.code}` **{f.kind}** ({', '.join(f.requirement_ids)}): {f.message}")
    if report.real_spec_findings():
        lines.append("")
    notes = report.analysis_notes()
    if notes:
        lines += [f"<details><summary>Analysis notes ({len(notes)}, not spec findings)</summary>", ""]
        lines += [f"- `{f.code}` {f.kind} ({', '.join(f.requirement_ids)}): {f.message}" for f in notes]
        lines += ["", "</details>", ""]
    for r in report.requirements:
        lines += _details(r, report)
    used = [f for f, n in report.flag_counts().items() if n]
    if used:
        lines += ["<details><summary>Flags</summary>", ""] + [f"- **{f}**: {FLAGS[f]}" for f in used] + [
            "", "</details>", ""]
    return "\n".join(lines)
