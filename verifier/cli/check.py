"""``evalgap check``: a spec against its target, or a folder of cases; a thin layer over :func:`evalgap.check`."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

import evalgap
from evalgap.verifier.cli.common import echo_or_write, fail, handles_errors, read_stdin_spec, write_output
from evalgap.verifier.fileio import preflight
from evalgap.verifier.events import CaseFinished, CheckStarted, Event, RequirementFinished
from evalgap.verifier.options import PROFILES, Settings, parse_engines, resolve_settings
from evalgap.verifier.project.case import MANIFEST
from evalgap.verifier.report.outputs import FORMATS, Destination, plan_outputs, render

if TYPE_CHECKING:
    from evalgap.verifier.report.gap import GapReport

__all__ = ["check"]


class _Progress:
    """The CLI's ``on_event``: a progress bar on a terminal (opened when the check says how many requirements it
    has); off a terminal (CI logs) one plain line per finished requirement on standard error, so a long check
    is never silent; nothing with ``quiet``; with ``verbose`` plain lines on a terminal too, each followed by
    every engine's verdict and reason."""

    def __init__(self, quiet: bool = False, verbose: bool = False) -> None:
        self._stack = contextlib.ExitStack()
        self._tick: Any = None
        self._quiet = quiet
        self._verbose = verbose
        self._total = 0
        self._done = 0

    def __call__(self, event: Event) -> None:
        if self._quiet:
            return
        if isinstance(event, CheckStarted):
            self._total = event.requirements
            if sys.stderr.isatty() and not self._verbose:
                from evalgap.verifier.report.text import check_progress

                self._tick = self._stack.enter_context(check_progress(event.requirements, sys.stderr))
        elif isinstance(event, RequirementFinished):
            self._done += 1
            if self._tick is not None:
                self._tick(event.result)
            else:
                r = event.result
                word = r.verdict.value if r.verdict else r.role
                click.echo(f"[{self._done}/{self._total}] {r.id}: {word} ({r.elapsed_s:.1f} s)", err=True)
                if self._verbose:
                    for v in r.verdicts:
                        click.echo(f"    {v.engine}: {v.verdict.value}: {v.reason}", err=True)

    def close(self) -> None:
        self._stack.close()


@click.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--target", "target_arg", metavar="NAME|MODULE|FILE",
              help="Code to check: a case's named implementation, a module name or a .py file "
                   "(default: the case's default, else the spec's `target:`).")
@click.option("--format", "-f", "formats", type=click.Choice(FORMATS), multiple=True,
              help="Report format; repeat for several (default text). See docs/report.md.")
@click.option("--output", "-o", "outputs", multiple=True, metavar="[FORMAT=]PATH",
              help="FORMAT=PATH writes that format to PATH (atomically); a plain PATH takes the one format "
                   "given, or is a folder for several. Formats without a path go to standard output.")
@click.option("--budget", type=float, metavar="SECONDS",
              help="CrossHair CPU seconds per requirement (default 10; see --profile).")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), help="Budget profile (also EVALGAP_PROFILE).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Requirements checked in parallel "
              "(default: the number of cores).")
@click.option("--analysis/--no-analysis", default=True, show_default=True,
              help="Also run the Z3 analysis of the requirements (a conflict exits 1).")
@click.option("--fail-on", "fail_on", default=None, metavar="LIST",
              help="What makes the exit code non-zero: refuted,unknown,bounded,not-formalized,smell,weak "
                   "(exit 1; unknown exits 3 when nothing else fails; default: [tool.evalgap] fail_on, else "
                   "refuted,unknown).")
@click.option("--tests", "tests_path", type=click.Path(path_type=Path), metavar="PATH",
              help="Run the project's pytest tests at PATH (sandboxed) and map them to requirements by "
                   "tracing which target functions each test executes.")
@click.option("--engines", metavar="LIST", help="Engines per requirement, comma-separated: crosshair, "
              "hypothesis (default: both).")
@click.option("--seed", type=int, help="Hypothesis seed for research runs (default: derandomized).")
@click.option("--database-url", "database_url", metavar="URL", help="Run the requirements of `database` blocks on "
              "this PostgreSQL server (postgresql://USER@HOST:PORT/DB; also EVALGAP_POSTGRES_URL, [tool.evalgap] "
              "database_url; default: SQLite in memory). The URL's role makes a throw-away role and database per "
              "run (docs/database.md).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache ($EVALGAP_CACHE_DIR).")
@click.option("--emit-tests", "emit_dir", type=click.Path(path_type=Path), metavar="DIR",
              help="Write a pytest reproducer file per refutation into DIR.")
@click.option("--strength", is_flag=True, default=None, help="Also measure each passing requirement's spec "
              "strength by mutation analysis (one more check per mutant; flags `weak` requirements).")
@click.option("--server", "use_server", is_flag=True, help="Run the check in the `evalgap serve` server (warm "
              "workers; error when none listens). Also EVALGAP_SERVER=1.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on standard error (the report is unchanged).")
@click.option("-v", "--verbose", is_flag=True, help="Say which settings apply and where each came from "
              "(default, pyproject.toml, profile, command line), and print every engine's verdict and reason as "
              "each requirement finishes (the report is unchanged).")
@handles_errors()
def check(spec: Path, target_arg: str | None, formats: tuple[str, ...], outputs: tuple[str, ...],
          budget: float | None, profile: str | None, jobs: int | None, fail_on: str | None,
          tests_path: Path | None, analysis: bool, engines: str | None, seed: int | None, database_url: str | None,
          no_cache: bool, emit_dir: Path | None, strength: bool | None, use_server: bool, quiet: bool,
          verbose: bool) -> None:
    """Check SPEC (a .req file or a case folder with case.toml) against its target and print a gap report.

    SPEC may also be a folder of case folders (e.g. case_studies/): every case's default implementation is
    checked and one summary table is printed, with whether each case matched its manifest. SPEC `-` reads
    the spec from standard input (named `<stdin>` in diagnostics and reports); give its code with --target
    (or a `target:` relative to the current folder)."""
    if quiet and verbose:
        fail("-q/--quiet and -v/--verbose cannot be combined")
    stdin = str(spec) == "-"
    if fail_on is not None:
        from evalgap.verifier.report.gap import parse_fail_on
    cli_opts = {"budget": budget, "profile": profile, "jobs": jobs, "seed": seed,
                "engines": parse_engines(engines) if engines is not None else None,
                "cache": False if no_cache else None, "strength": strength, "database_url": database_url,
                "fail_on": parse_fail_on(fail_on) if fail_on is not None else None}
    if not stdin and spec.is_dir() and not (spec / MANIFEST).is_file() and not any(spec.glob("*.req")):
        _check_suite(spec, target_arg, formats, outputs, cli_opts, verbose)
    for dest in plan_outputs(formats, outputs, "spec"):  # bad -o / -f combinations fail before anything runs
        if dest.path is not None:
            preflight(dest.path, dest.folder)
    settings = resolve_settings(cli_opts, Path.cwd() if stdin else spec if spec.is_dir() else spec.parent)
    from dataclasses import replace

    settings = replace(settings, analysis=analysis)
    fail_set = settings.fail_on
    if verbose:
        _say_settings(settings)
    subject: Any = spec
    target: Any = target_arg
    text = None
    use_server = use_server or os.environ.get("EVALGAP_SERVER", "").lower() in ("1", "true", "yes")
    if stdin:
        from evalgap.specs_lang.textfile import STDIN_NAME

        text = read_stdin_spec()
        if not use_server:
            subject, target, _ = evalgap.load_spec(STDIN_NAME, target_arg, opts=settings, text=text)
        else:
            subject = STDIN_NAME
    progress = _Progress(quiet, verbose)
    try:
        if use_server:
            from evalgap.verifier.server import check_via_server

            report = check_via_server(subject, target, settings, on_event=progress, tests=tests_path, text=text)
        else:
            report = evalgap.check(subject, target, settings=settings, on_event=progress, tests=tests_path)
    finally:
        progress.close()
    from evalgap.verifier.report.gap import GapReport, exit_code  # after the check: its workers start first

    assert isinstance(report, GapReport)
    if emit_dir is not None:
        from evalgap.verifier.report.emit_tests import emit_tests

        try:
            written = emit_tests(report.requirements, emit_dir, report.spec_name, report.target)
        except OSError as exc:
            fail(f"cannot write reproducer tests to {emit_dir}: {exc}")
        click.echo(f"wrote {len(written)} reproducer test(s) to {emit_dir}", err=True)
    for dest in plan_outputs(formats, outputs, report.spec_name):
        _emit(report, dest)
    raise SystemExit(exit_code(report, fail_set))


def _say_settings(settings: Settings) -> None:
    """``-v``: the settings in force and the layer each came from, on standard error."""
    src = settings.sources
    click.echo(f"settings ({settings.pyproject or 'no pyproject.toml'}; profile {settings.profile or 'none'}):",
               err=True)
    for label, value, key in (("budget", f"{settings.budget_s:g} s", "budget"), ("jobs", str(settings.jobs), "jobs"),
                              ("engines", ",".join(settings.engines), "engines"),
                              ("hypothesis_examples", str(settings.hypothesis_examples), "hypothesis_examples"),
                              ("cache", str(settings.cache).lower(), "cache"),
                              ("fail_on", ",".join(settings.fail_on), "fail_on")):
        click.echo(f"  {label} = {value} ({src.get(key, 'default')})", err=True)
    if settings.database_url:
        from evalgap.verifier.engines.dbserver import parse_url

        click.echo(f"  database_url = {parse_url(settings.database_url).shown} "
                   f"({src.get('database_url', 'default')})", err=True)


def _check_suite(root: Path, target_arg: str | None, formats: tuple[str, ...], outputs: tuple[str, ...],
                 cli_opts: dict[str, Any], verbose: bool = False) -> None:
    """`evalgap check FOLDER` for a folder of case folders (logic in :mod:`evalgap.verifier.project.suite`).

    Settings layer as for one case (``[tool.evalgap]`` of the folder's pyproject.toml, the profile, the
    command line); where neither pyproject.toml nor the command line chose, the suite keeps its own defaults
    (CrossHair only, no cache), which its manifests' expected verdicts are written for."""
    from dataclasses import replace

    from evalgap.verifier.project.suite import SuiteReport, render_suite_json, render_suite_text, suite_exit_code

    if len(formats) > 1 or any(f not in ("text", "json") for f in formats) or len(outputs) > 1 or any(
            "=" in o for o in outputs):
        fail("a folder of cases takes one --format (text or json) and at most one plain --output")
    fmt = formats[0] if formats else "text"
    output = Path(outputs[0]) if outputs else None
    if target_arg is not None:
        fail("--target names one implementation; it cannot apply to a folder of cases")
    opts = resolve_settings(cli_opts, root)
    chosen = {k for k, v in opts.sources.items() if v in ("pyproject.toml", "command line")}
    opts = replace(opts, engines=opts.engines if "engines" in chosen else ("crosshair",),
                   cache=opts.cache if "cache" in chosen else False, analysis=False)
    if verbose:
        _say_settings(opts)
    live = fmt == "text" and output is None

    def show(event: Event) -> None:
        if live and isinstance(event, CaseFinished):
            click.echo(f"checked {event.case} ({event.elapsed_s:.1f} s)", err=True)
    result = evalgap.check(root, settings=opts, on_event=show)
    assert isinstance(result, SuiteReport)
    if fmt == "json":
        text = render_suite_json(result)
    else:
        buf = io.StringIO()
        render_suite_text(result, buf)
        text = buf.getvalue()
    echo_or_write(text, output)
    raise SystemExit(suite_exit_code(result))


def _emit(report: GapReport, dest: Destination) -> None:
    if dest.path is not None:
        write_output(dest.path, render(report, dest.fmt, color=False), dest.folder)
    elif dest.fmt == "text":
        from evalgap.verifier.report.text import render_text

        render_text(report, sys.stdout)
    else:
        click.echo(render(report, dest.fmt), nl=False)
