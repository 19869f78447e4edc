"""Render a :class:`~evalgap.verifier.gap.GapReport` for a terminal (rich table; colours only on a tty)."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.gap import GapReport

__all__ = ["render_text"]

_STYLE = {
    Verdict.VERIFIED: "bold green", Verdict.NO_COUNTEREXAMPLE: "green", Verdict.UNKNOWN: "yellow",
    Verdict.REFUTED: "bold red", Verdict.NOT_FORMALIZED: "magenta",
}


def _evidence(r: RequirementResult) -> Text:
    if r.role == "precondition":
        return Text("precondition: narrows the domain of the other requirements on "
                    f"{r.function}; callers must meet it (not checked against the code)")
    if r.role == "config":
        return Text("config rule: checked against configuration files by `evalgap check-config` and the Z3 "
                    "analysis, not against the code")
    parts = Text()
    for v in r.verdicts:
        if v.counterexample and v.verdict is Verdict.REFUTED:
            parts.append("counterexample: ", style="bold")
            parts.append(v.counterexample + "\n")
        parts.append(v.reason)
        if v.verdict is Verdict.NO_COUNTEREXAMPLE or (v.verdict is Verdict.VERIFIED and v.budget.paths):
            pass
    if r.narrowed_by:
        parts.append(f"\nassuming {', '.join(r.narrowed_by)}", style="dim")
    return parts


def render_text(report: GapReport, stream: TextIO, color: bool | None = None) -> None:
    """Write the report as a table plus a one-line summary.

    Args:
        report: the gap report.
        stream: where to write (a terminal gets colours unless ``color`` is False).
        color: force colours on or off; None detects a terminal.
    """
    console = Console(file=stream, force_terminal=color, no_color=(color is False), width=None if
                      stream.isatty() else 120, soft_wrap=False, highlight=False)
    title = f"evalgap gap report: {report.spec_name}"
    if report.spec_title:
        title += f" ({report.spec_title})"
    console.print(Text(title, style="bold"))
    console.print(f"spec {report.spec_file}  target {report.target}  budget {report.budget_s:g} CPU s "
                  "per requirement")
    table = Table(show_lines=True, expand=False)
    table.add_column("ID", no_wrap=True)
    table.add_column("requirement", max_width=38)
    table.add_column("formalized", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("evidence", max_width=60)
    if report.expected:
        table.add_column("expected", no_wrap=True)
    for r in report.requirements:
        form = r.formalization if r.formalization != "informal" else f"no ({r.category})"
        verdict = Text(r.verdict.value, style=_STYLE[r.verdict]) if r.verdict else Text("precondition",
                                                                                          style="cyan")
        row: list[str | Text] = [r.id, r.prose, form, verdict, _evidence(r)]
        if report.expected:
            want = report.expected.get(r.id)
            got = r.verdict.value if r.verdict else "precondition"
            row.append(Text("-" if want is None else ("ok" if got in want else "MISMATCH: " + "|".join(want)),
                            style="green" if want is None or got in want else "bold red"))
        table.add_row(*row)
    console.print(table)
    s = report.summary()
    line = (f"{s['requirements']} requirements, {s['formalized']} formalized: {s['refuted']} refuted, "
            f"{s['unknown']} unknown, {s['no-counterexample']} no-counterexample (bounded, not proofs), "
            f"{s['verified']} verified, {s['not-formalized']} not formalized")
    if s["preconditions"]:
        line += f", {s['preconditions']} precondition(s)"
    console.print(line + f"  [{report.elapsed_s:.1f} s]")
    if report.expected:
        mism = report.mismatches()
        console.print("matches the case manifest" if not mism else
                      f"{len(mism)} verdict(s) differ from the case manifest: " +
                      ", ".join(f"{i} is {g}, expected {'|'.join(w)}" for i, g, w in mism))
