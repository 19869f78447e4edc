"""The ``evalgap`` command line.

Exit codes, the same for every command: 0 nothing refuted and nothing unknown; 1 something refuted;
2 usage or spec error; 3 nothing refuted but something unknown. Precedence: 2, then 1, then 3.
Commands take their output streams from click, so tests call them in-process with ``CliRunner``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import click

from evalgap.specs_lang import SpecError, check_structure, parse_file
from evalgap.verifier.case import MANIFEST, Case, load_case
from evalgap.verifier.engine import CheckOptions, check_spec
from evalgap.verifier.errors import UsageError, VerifierError
from evalgap.verifier.gap import EXIT_OK, EXIT_USAGE, GapReport, build_report, exit_code
from evalgap.verifier.options import PROFILES, default_jobs, resolve_budget
from evalgap.verifier.report_json import render_json
from evalgap.verifier.report_text import render_text
from evalgap.verifier.targets import Target, resolve_target

__all__ = ["main", "cli"]


def _fail(message: str) -> None:
    click.echo(message, err=True)
    raise SystemExit(EXIT_USAGE)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _locate(spec_arg: Path, target_arg: str | None) -> tuple[Path, Target | None, Case | None]:
    case = None
    spec_path = spec_arg
    if spec_arg.is_dir():
        if not (spec_arg / MANIFEST).is_file():
            raise UsageError(f"{spec_arg} is a folder without a {MANIFEST}; give a .req file or a case folder")
        case = load_case(spec_arg)
        spec_path = case.spec
    elif not spec_arg.exists():
        raise UsageError(f"spec {spec_arg} does not exist")
    target = None
    if target_arg is not None:
        impls = case.relative_implementations() if case else None
        target = resolve_target(target_arg, Path.cwd(), impls, case.folder if case else None)
    elif case is not None:
        target = resolve_target(case.default, case.folder, case.relative_implementations(), case.folder)
    return spec_path, target, case


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="evalgap")
def cli() -> None:
    """evalgap: measure the gap between "the tests pass" and "the code meets its requirements"."""


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--target", "target_arg", metavar="NAME|MODULE|FILE",
              help="Code to check: a case's named implementation, a module name or a .py file "
                   "(default: the case's default, else the spec's `target:`).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Report format.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the report to this file "
              "(atomically) instead of standard output.")
@click.option("--budget", type=float, metavar="SECONDS",
              help="CrossHair CPU seconds per requirement (default 10; see --profile).")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), help="Budget profile (also EVALGAP_PROFILE).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Requirements checked in parallel "
              "(default: the number of cores).")
def check(spec: Path, target_arg: str | None, fmt: str, output: Path | None, budget: float | None,
          profile: str | None, jobs: int | None) -> None:
    """Check SPEC (a .req file or a case folder with case.toml) against its target and print a gap report."""
    try:
        budget_s = resolve_budget(budget, profile)
        spec_path, target, case = _locate(spec, target_arg)
        parsed = parse_file(spec_path)
        source = spec_path.read_text(encoding="utf-8")
        check_structure(parsed, source)
        if target is None:
            if parsed.target is None:
                raise UsageError(f"{spec_path}: no target: add `target: FILE.py` to the spec or pass --target")
            target = resolve_target(parsed.target, spec_path.parent.resolve())
    except SpecError as exc:
        _fail(exc.render())
        return
    except VerifierError as exc:
        _fail(f"error: {exc}")
        return
    started = time.monotonic()
    results = check_spec(parsed, source, target, CheckOptions(budget_s=budget_s, jobs=jobs or default_jobs()))
    expected: dict[str, tuple[str, ...]] = {}
    if case is not None:
        impl = next((name for name, p in case.implementations.items() if str(p) == target.file), None)
        expected = case.expected.get(impl, {}) if impl else {}
    report = build_report(parsed.name, parsed.title, str(spec_path), target.display, budget_s, results,
                          time.monotonic() - started, expected)
    _emit(report, fmt, output)
    raise SystemExit(exit_code(report))


def _emit(report: GapReport, fmt: str, output: Path | None) -> None:
    if fmt == "json":
        text = render_json(report)
        if output:
            _write_atomic(output, text)
        else:
            click.echo(text, nl=False)
        return
    if output:
        import io

        buf = io.StringIO()
        render_text(report, buf, color=False)
        _write_atomic(output, buf.getvalue())
    else:
        render_text(report, click.get_text_stream("stdout"))


@cli.command()
@click.argument("specs", nargs=-1, required=True, type=click.Path(path_type=Path))
def lint(specs: tuple[Path, ...]) -> None:
    """Parse SPECS and check their structure (IDs, categories, clause placement); exit 2 on any problem."""
    bad = False
    for sp in specs:
        try:
            path = load_case(sp).spec if sp.is_dir() else sp
            check_structure(parse_file(path), path.read_text(encoding="utf-8"))
            click.echo(f"{path}: ok")
        except SpecError as exc:
            click.echo(exc.render(), err=True)
            bad = True
        except VerifierError as exc:
            click.echo(f"error: {exc}", err=True)
            bad = True
    raise SystemExit(EXIT_USAGE if bad else EXIT_OK)


@cli.command()
@click.argument("repo", required=False, default=".", type=click.Path(path_type=Path, file_okay=False))
@click.option("--spec", "spec", required=True, type=click.Path(path_type=Path),
              help="The .req spec (repository-relative: read from each version).")
@click.option("--base", default="HEAD~1", show_default=True, help="Base revision.")
@click.option("--head", default=None, help="Head revision (default HEAD).")
@click.option("--patch", type=click.Path(path_type=Path, dir_okay=False), help="A diff applied to --base "
              "instead of --head.")
@click.option("--staged", is_flag=True, help="Gate the staged changes against HEAD (for pre-commit).")
@click.option("--target", "target_arg", metavar="FILE.py", help="Repository-relative target overriding the "
              "spec's `target:`.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown", "sarif", "junit"]), default="text",
              show_default=True, help="Format of standard output / -o.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the report here instead.")
@click.option("--sarif", "sarif_out", type=click.Path(path_type=Path), help="Also write SARIF 2.1.0 here.")
@click.option("--markdown", "md_out", type=click.Path(path_type=Path), help="Also write the Markdown summary.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), help="Also write the JSON report here.")
@click.option("--junit", "junit_out", type=click.Path(path_type=Path), help="Also write JUnit XML here.")
@click.option("--budget", type=float, metavar="SECONDS", help="CrossHair CPU seconds per requirement.")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), help="Budget profile (also EVALGAP_PROFILE).")
@click.option("--diff-budget", type=float, metavar="SECONDS", help="CrossHair CPU seconds per behaviour "
              "diff (default: the requirement budget).")
@click.option("--no-behavior-diff", is_flag=True, help="Skip behaviour diffing.")
@click.option("--fail-on-unexplained", is_flag=True, help="Exit 1 on an unexplained behaviour change.")
@click.option("--tests", "tests", multiple=True, metavar="GLOB", help="Visible tests (repository-relative "
              "globs) whose literals EG407 looks for (default: tests/**, test_*.py, *_test.py).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Requirements checked in parallel.")
def gate(repo: Path, spec: Path, base: str, head: str | None, patch: Path | None, staged: bool,
         target_arg: str | None,
         fmt: str, output: Path | None, sarif_out: Path | None, md_out: Path | None, json_out: Path | None,
         junit_out: Path | None,
         budget: float | None, profile: str | None, diff_budget: float | None, no_behavior_diff: bool,
         fail_on_unexplained: bool, tests: tuple[str, ...], jobs: int | None) -> None:
    """Gate a change of REPO (default .): requirements it breaks, unexplained behaviour changes, gaming."""
    from evalgap.verifier import gate_report as gr
    from evalgap.verifier.gate import DEFAULT_TEST_GLOBS, GateOptions, gate_exit_code, run_gate

    try:
        budget_s = resolve_budget(budget, profile)
        if diff_budget is not None and diff_budget <= 0:
            raise UsageError("--diff-budget must be a positive number of CPU seconds")
        opts = GateOptions(budget_s=budget_s, diff_budget_s=diff_budget or budget_s, jobs=jobs or default_jobs(),
                           test_globs=tests or DEFAULT_TEST_GLOBS, behavior_diff=not no_behavior_diff,
                           fail_on_unexplained=fail_on_unexplained, target=target_arg)
        if staged:
            if head or patch:
                raise UsageError("--staged gates the index against HEAD; do not combine it with --head/--patch")
            from evalgap.verifier.gitdiff import write_staged_patch

            with tempfile.TemporaryDirectory(prefix="evalgap-staged-") as tmp:
                report = run_gate(repo, spec, "HEAD", None, write_staged_patch(repo, Path(tmp)), opts)
        else:
            report = run_gate(repo, spec, base, head, patch, opts)
    except SpecError as exc:
        _fail(exc.render())
        return
    except VerifierError as exc:
        _fail(f"error: {exc}")
        return
    renderers = {"text": gr.render_gate_text, "json": gr.render_gate_json, "markdown": gr.render_gate_markdown,
                 "sarif": gr.render_gate_sarif, "junit": gr.render_gate_junit}
    for path, render in ((sarif_out, gr.render_gate_sarif), (md_out, gr.render_gate_markdown),
                         (json_out, gr.render_gate_json), (junit_out, gr.render_gate_junit)):
        if path is not None:
            _write_atomic(path, render(report))
    text = renderers[fmt](report)
    if output:
        _write_atomic(output, text)
    else:
        click.echo(text, nl=False)
    raise SystemExit(gate_exit_code(report))


def main() -> None:
    """Console-script entry point."""
    try:
        cli.main(prog_name="evalgap", standalone_mode=True)
    except KeyboardInterrupt:  # pragma: no cover - interactive
        click.echo("interrupted", err=True)
        sys.exit(130)
