"""Render a :class:`~evalgap.verifier.report.gap.GapReport` for a terminal (rich table; colours only on a tty)."""

from __future__ import annotations

import os

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from evalgap.verifier.findings import RequirementResult, Verdict
from evalgap.verifier.report.gap import GapReport, budget_use

__all__ = ["render_text", "render_text_string", "check_progress", "summary_line"]

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
    many = len(r.verdicts) > 1
    for i, v in enumerate(r.verdicts):
        if i:
            parts.append("\n")
        if many:
            parts.append(f"{v.engine} {v.verdict.value}: ", style=_STYLE.get(v.verdict, ""))
        if v.counterexample and v.verdict is Verdict.REFUTED:
            parts.append("counterexample: ", style="bold")
            parts.append(v.counterexample + "\n")
        parts.append(v.reason + (" (cached)" if v.cached else ""))
    if r.disagreement:
        parts.append(f"\n{r.disagreement}", style="bold")
    if r.bounds:
        parts.append(f"\nbounded by: {'; '.join(r.bounds)}", style="bold")
    use = budget_use(r)
    if use:
        parts.append(f"\nbudget use: {use}", style="dim")
    if r.strength is not None:
        parts.append("\n" + r.strength.describe(), style="bold" if r.strength.weak else "dim")
    if r.narrowed_by:
        parts.append(f"\nassuming {', '.join(r.narrowed_by)}", style="dim")
    if r.tests:
        passed = sum(1 for t in r.tests if t.outcome == "passed")
        parts.append(f"\ntests: {passed}/{len(r.tests)} passing exercise it", style="dim")
    if r.smells:
        parts.append("\nsmells: " + "; ".join(f"{s.code} \u201c{s.phrase}\u201d" for s in r.smells),
                     style="dim")
    return parts


@contextmanager
def check_progress(total: int, stream: TextIO) -> Iterator[Callable[[RequirementResult], None]]:
    """A progress bar on ``stream`` while requirements are checked, only when it is a terminal.

    Yields:
        A callback taking each finished :class:`RequirementResult` (thread-safe; a no-op off a terminal).
    """
    if not stream.isatty():
        yield lambda _r: None
        return
    progress = Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                        TimeElapsedColumn(), console=Console(file=stream), transient=True)
    task = progress.add_task("", total=total)
    with progress:
        yield lambda r: progress.update(task, advance=1, description=f"{r.id}: "
                                        f"{r.verdict.value if r.verdict else 'precondition'}")


def summary_line(report: GapReport) -> str:
    """The one-line summary: counts per verdict, coverage, flags of note and the time."""
    s = report.summary()
    line = (f"{s['requirements']} requirements, {s['formalized']} formalized: {s['refuted']} refuted, "
            f"{s['unknown']} unknown, {s['no-counterexample']} no-counterexample (bounded, not proofs), "
            f"{s['verified']} verified, {s['not-formalized']} not formalized")
    if s["preconditions"]:
        line += f", {s['preconditions']} precondition(s)"
    flags = report.flag_counts()
    if flags["bounded-proof"]:
        line += f"; {flags['bounded-proof']} verified only within bounds (bounded-proof)"
    if flags["weak"]:
        line += f"; {flags['weak']} weak (few mutants rejected)"
    if flags["tests-pass-but-refuted"]:
        line += f"; {flags['tests-pass-but-refuted']} refuted although their tests pass"
    smells = sum(report.smell_counts().values())
    if smells:
        line += f"; {smells} requirement smell(s)"
    real, notes = report.real_spec_findings(), report.analysis_notes()
    if real:
        line += f"; {len(real)} spec finding(s)"
    if notes:
        line += f"; {len(notes)} analysis note(s)"
    return line + f"  [{report.elapsed_s:.1f} s]"


def render_text_string(report: GapReport, color: bool = False) -> str:
    """The text report (:func:`render_text`) as a string; ``color`` adds ANSI colours."""
    import io

    buf = io.StringIO()
    render_text(report, buf, color=color)
    return buf.getvalue()


def _columns() -> int:
    """The width off a terminal: ``$COLUMNS`` when it is a number of at least 40, else 120."""
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return 120
    return width if width >= 40 else 120


def render_text(report: GapReport, stream: TextIO, color: bool | None = None) -> None:
    """Write the report as a table plus a one-line summary.

    Args:
        report: the gap report.
        stream: where to write (a terminal gets colours unless ``color`` is False).
        color: force colours on or off; None detects a terminal.
    """
    console = Console(file=stream, force_terminal=color, no_color=True if color is False else None,
                      width=None if stream.isatty() else _columns(), soft_wrap=False, highlight=False)
    title = f"evalgap gap report: {report.spec_name}"
    if report.spec_title:
        title += f" ({report.spec_title})"
    console.print(Text(title, style="bold"))
    console.print(f"spec {report.spec_file}  target {report.target}  budget {report.budget_s:g} CPU s "
                  "per requirement")
    console.print(f"sandbox: {report.sandbox}")
    if console.width < _TABLE_MIN_WIDTH:
        _render_list(report, console)
    else:
        _render_table(report, console)
    _render_tail(report, console)


#: Below this width (columns) the report is a list, one block per requirement: a table that narrow would cut
#: its headers and squeeze the evidence into a column a few characters wide.
_TABLE_MIN_WIDTH = 100


def _expected_text(report: GapReport, r: RequirementResult) -> Text:
    want = report.expected.get(r.id)
    got = r.verdict.value if r.verdict else "precondition"
    return Text("-" if want is None else ("ok" if got in want else "MISMATCH: " + "|".join(want)),
                style="green" if want is None or got in want else "bold red")


def _render_list(report: GapReport, console: Console) -> None:
    """One block per requirement: the ID, verdict and formalization on one line, then the prose, the flags and
    the evidence, each wrapped (never cut) to the width."""
    for r in report.requirements:
        form = r.formalization if r.formalization != "informal" else f"no ({r.category})"
        head = Text(f"{r.id}  ")
        head.append(r.verdict.value if r.verdict else "precondition",
                    style=_STYLE[r.verdict] if r.verdict else "cyan")
        head.append(f"  formalized: {form}")
        if report.expected:
            head.append("  expected: ")
            head.append_text(_expected_text(report, r))
        console.print(head)
        console.print(Text(f"  {r.prose}"))
        if r.flags:
            console.print(Text(f"  flags: {', '.join(r.flags)}", style="yellow"))
        evidence = _evidence(r)
        for line in evidence.split("\n"):
            if line.plain.strip():
                console.print(Text("  ").append_text(line))


def _render_table(report: GapReport, console: Console) -> None:
    table = Table(show_lines=True, expand=False)
    table.add_column("ID", no_wrap=True)
    table.add_column("requirement", max_width=38)
    table.add_column("formalized", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("flags", max_width=18, overflow="fold")
    table.add_column("evidence", max_width=60, overflow="fold")  # folded, never cut: a counterexample is evidence
    if report.expected:
        table.add_column("expected", no_wrap=True)
    for r in report.requirements:
        form = r.formalization if r.formalization != "informal" else f"no ({r.category})"
        verdict = Text(r.verdict.value, style=_STYLE[r.verdict]) if r.verdict else Text("precondition",
                                                                                          style="cyan")
        if r.bounds:  # the word stays; its bounds are beside it and listed in the evidence
            verdict.append("\n(bounded)", style="yellow")
        row: list[str | Text] = [r.id, r.prose, form, verdict, Text("\n".join(r.flags), style="yellow"),
                                 _evidence(r)]
        if report.expected:
            row.append(_expected_text(report, r))
        table.add_row(*row)
    console.print(table)


def _render_tail(report: GapReport, console: Console) -> None:
    if report.analysis is not None:
        import io

        from evalgap.verifier.report.analysis_text import render_analysis_text

        buf = io.StringIO()
        render_analysis_text(report.analysis, buf, heading=False, group_outside=True)
        console.print(Text("requirements analysis (Z3, findings about the spec):", style="bold"))
        console.print(Text(buf.getvalue().rstrip("\n")))
    else:
        for f in report.real_spec_findings():
            console.print(f"spec finding {f.code} {f.kind} ({', '.join(f.requirement_ids)}): {f.message}")
        for f in report.analysis_notes():
            console.print(f"analysis note {f.code} {f.kind} ({', '.join(f.requirement_ids)}): {f.message}")
    if report.tests is not None:
        c = report.tests.counts()
        console.print(f"project tests {report.tests.path}: {c['passed']} passed, {c['failed']} failed, "
                      f"{c['error']} errors, {c['skipped']} skipped")
    console.print(summary_line(report))
    if report.expected:
        problems = [f"{i} is {g}, expected {'|'.join(w)}" for i, g, w in report.mismatches()]
        problems += [f"{i} is in the manifest but not in the spec" for i in report.unknown_expected()]
        console.print("matches the case manifest" if not problems else
                      f"{len(problems)} difference(s) from the case manifest: " + ", ".join(problems))
