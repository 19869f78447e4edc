"""Check every case folder under a directory and summarize: ``evalgap check case_studies/``.

A *case folder* is a folder holding a ``case.toml`` manifest (see :mod:`evalgap.verifier.project.case`). The suite
walks a directory recursively (folders named ``__pycache__`` or starting with ``.`` are skipped; a case
folder's own subfolders are not searched further), checks each case's **default** implementation against
its spec, compares the verdicts with the manifest's ``[expected.<impl>]`` table and gives one row per case:
requirements, refuted, unknown, not formalized, wall-clock time, and whether the verdicts match the
manifest (every requirement listed, every verdict accepted).

Exit code of the suite (the house rule, precedence 2, 1, 3): 2 when a case could not be loaded or its spec
has an error; otherwise 1 when anything was refuted (the agent implementations of the shipped cases are
refuted on purpose); otherwise 3 when anything is unknown; otherwise 0.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable, TextIO

import evalgap
from evalgap.specs_lang import SpecError
from evalgap.verifier.errors import VerifierError
from evalgap.verifier.options import Settings
from evalgap.verifier.project.case import MANIFEST, Case, load_case
from evalgap.verifier.report.gap import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, EXIT_USAGE, GapReport, exit_code

__all__ = ["find_cases", "check_case", "manifest_mismatches", "CaseRow", "SuiteReport", "run_suite",
           "render_suite_text", "render_suite_json", "suite_exit_code"]


def find_cases(root: Path) -> list[Path]:
    """Case folders (holding ``case.toml``) under ``root``, sorted by path; ``root`` itself if it is one.

    Args:
        root: a directory.
    Returns:
        Absolute folder paths, sorted; empty when there is no case folder.
    """
    root = root.resolve()
    if (root / MANIFEST).is_file():
        return [root]
    found: list[Path] = []
    for child in sorted(p for p in root.iterdir() if p.is_dir()):
        if child.name == "__pycache__" or child.name.startswith("."):
            continue
        found.extend(find_cases(child))
    return found


def check_case(case: Case, impl: str | None, options: Settings) -> GapReport:
    """Check one implementation of a case against the case's spec.

    Args:
        case: the loaded manifest.
        impl: an implementation name of the manifest; None means the case's default.
        options: budget (CPU seconds per requirement) and parallel jobs.
    Returns:
        The gap report, with the manifest's expected verdicts for that implementation attached.
    Raises:
        SpecError: the spec does not parse or fails the structural checks.
        VerifierError: the implementation cannot be resolved.
    """
    report = evalgap.check(case.folder, impl, settings=replace(options, analysis=False))
    assert isinstance(report, GapReport)
    return report


def manifest_mismatches(report: GapReport) -> list[str]:
    """Human-readable differences between a report and its manifest's expected verdicts: a verdict the
    manifest does not accept, a requirement the manifest does not list, or one it lists that the spec lacks.
    Empty when the report has no expectations at all is *not* a match: see :func:`run_suite`."""
    out = [f"{rid} is {got}, expected {'|'.join(want)}" for rid, got, want in report.mismatches()]
    # config rules get no verdict about code (`evalgap check-config` checks them): the manifest may omit them
    ids = {r.id for r in report.requirements if r.role != "config"}
    out += [f"{rid} has no expected verdict in {MANIFEST}" for rid in sorted(ids - set(report.expected))]
    out += [f"{rid} is in {MANIFEST} but not in the spec" for rid in report.unknown_expected()]
    return out


@dataclass(frozen=True)
class CaseRow:
    """One line of the suite summary.

    Attributes:
        case: the case folder relative to the suite root (``.`` for the root itself).
        impl: the implementation checked (the case's default).
        requirements, refuted, unknown, not_formalized: counts from the gap report.
        elapsed_s: wall-clock seconds of the check, including loading.
        matches: True when every verdict is one the manifest accepts and every requirement is listed.
        problems: the mismatches, or the error message when the case could not be checked.
        error: True when the case could not be loaded or its spec has an error.
        exit_code: the case's own exit code under the run's ``fail_on``
            (:func:`evalgap.verifier.report.gap.exit_code`); None when not computed.
    """

    case: str
    impl: str
    requirements: int
    refuted: int
    unknown: int
    not_formalized: int
    elapsed_s: float
    matches: bool
    problems: tuple[str, ...] = ()
    error: bool = False
    exit_code: int | None = None


@dataclass(frozen=True)
class SuiteReport:
    """All rows of a suite run, in folder order, with the total wall-clock seconds and the budget."""

    root: str
    budget_s: float
    rows: tuple[CaseRow, ...]
    elapsed_s: float


def _row(folder: Path, root: Path, options: Settings) -> CaseRow:
    rel = str(folder.relative_to(root)) if folder != root else "."
    started = time.monotonic()
    try:
        case = load_case(folder)
        report = check_case(case, None, options)
    except SpecError as exc:
        return CaseRow(rel, "", 0, 0, 0, 0, time.monotonic() - started, False, (exc.render(),), True)
    except VerifierError as exc:
        return CaseRow(rel, "", 0, 0, 0, 0, time.monotonic() - started, False, (str(exc),), True)
    counts = report.summary()
    problems = manifest_mismatches(report)
    if not report.expected:
        problems.append(f"no [expected.{case.default}] table in {MANIFEST}")
    return CaseRow(rel, case.default, counts["requirements"], counts["refuted"], counts["unknown"],
                   counts["not-formalized"], time.monotonic() - started, not problems, tuple(problems),
                   exit_code=exit_code(report, options.fail_on))


def run_suite(root: Path, options: Settings,
              progress: Callable[[CaseRow], None] | None = None) -> SuiteReport:
    """Check the default implementation of every case folder under ``root`` (see the module docstring).

    Args:
        root: a directory (searched recursively).
        options: budget and jobs for every case.
        progress: called with each row as soon as its case is done (for live output).
    Returns:
        The rows in folder order.
    Raises:
        VerifierError: ``root`` holds no case folder.
    """
    root = root.resolve()
    folders = find_cases(root)
    if not folders:
        raise VerifierError(f"{root} holds no case folder (a folder with a {MANIFEST})")
    started = time.monotonic()
    rows = []
    for folder in folders:
        row = _row(folder, root, options)
        rows.append(row)
        if progress is not None:
            progress(row)
    return SuiteReport(str(root), options.budget_s, tuple(rows), time.monotonic() - started)


def suite_exit_code(result: SuiteReport) -> int:
    """2 if a case had an error, else 1 if a case exits 1, else 3 if a case exits 3, else 0; each case's exit
    code is its own under the run's ``fail_on`` (a row without one: 1 when anything was refuted, 3 when
    anything is unknown)."""
    if any(r.error for r in result.rows):
        return EXIT_USAGE
    codes = [r.exit_code if r.exit_code is not None else
             EXIT_REFUTED if r.refuted else EXIT_UNKNOWN if r.unknown else EXIT_OK for r in result.rows]
    if EXIT_REFUTED in codes:
        return EXIT_REFUTED
    if EXIT_UNKNOWN in codes:
        return EXIT_UNKNOWN
    return EXIT_OK


def render_suite_text(result: SuiteReport, stream: TextIO) -> None:
    """Write the summary table (plain text, aligned columns) and the mismatches below it."""
    head = ("case", "impl", "requirements", "refuted", "unknown", "not formalized", "time", "matches manifest")
    body = [(r.case, r.impl or "-", str(r.requirements), str(r.refuted), str(r.unknown), str(r.not_formalized),
             f"{r.elapsed_s:.1f} s", "error" if r.error else ("yes" if r.matches else "no")) for r in result.rows]
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    stream.write(f"evalgap suite: {result.root}  budget {result.budget_s:g} CPU s per requirement\n")
    for row in [head, *body]:
        cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        stream.write("  ".join(cells).rstrip() + "\n")
    n_match = sum(1 for r in result.rows if r.matches)
    stream.write(f"{len(result.rows)} cases, {n_match} match their manifest, "
                 f"{sum(r.refuted for r in result.rows)} requirements refuted, "
                 f"{sum(r.unknown for r in result.rows)} unknown  [{result.elapsed_s:.1f} s]\n")
    for r in result.rows:
        for p in r.problems:
            stream.write(f"{r.case}: {p}\n")


def render_suite_json(result: SuiteReport) -> str:
    """The suite result as JSON: ``{"root", "budget_s", "elapsed_s", "rows": [CaseRow fields...]}``."""
    return json.dumps(asdict(result), indent=2) + "\n"
