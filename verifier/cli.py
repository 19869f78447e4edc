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
        render_text(report, sys.stdout)


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
@click.argument("dataset")
@click.option("--evaluators", default="tests,hypothesis,crosshair", show_default=True,
              help="Comma-separated: tests, ground-truth, crosshair, crosshair-prop, hypothesis, hypothesis-const "
                   "(the ground truth is always run).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--ray-address", help="Ray cluster address (default: start a local instance).")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), default=Path("compare-out"),
              show_default=True, help="Output folder (rerun with the same folder to resume).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Programs evaluated in parallel (local executor).")
@click.option("--budget", type=float, default=20.0, show_default=True, help="CrossHair CPU seconds per function.")
@click.option("--seeds", default="0,1,2", show_default=True, help="Hypothesis seeds (one run each).")
@click.option("--examples", type=int, default=200, show_default=True, help="Hypothesis max_examples per seed.")
@click.option("--tasks", help="Comma-separated task IDs to keep.")
@click.option("--sources", help="Comma-separated candidate sources to keep (e.g. gpt-3.5-turbo).")
@click.option("--limit", type=int, help="At most this many candidates.")
@click.option("--no-plots", is_flag=True, help="Do not write plots.")
@click.option("--specs", type=click.Path(path_type=Path), help="Folder of property specs (HumanEval_N.req) "
              "for the crosshair-prop evaluator (adapters only).")
def compare(dataset: str, evaluators: str, executor: str, ray_address: str | None, out: Path, jobs: int,
            budget: float, seeds: str, examples: int, tasks: str | None, sources: str | None, limit: int | None,
            no_plots: bool, specs: Path | None) -> None:
    """Measure test-based vs spec-based evaluation on DATASET (ADAPTER:DATA_DIR, a .jsonl or a folder).

    Exit code: 0 no evaluation gap, 1 some program passes the tests but is wrong by the ground truth,
    2 usage or dataset error.
    """
    from evalgap.research.compare import CompareOptions
    from evalgap.research.evaluators import EvalSettings
    from evalgap.research.run import resolve_dataset, run_compare
    from rich.progress import Progress

    try:
        ds = resolve_dataset(dataset, tasks.split(",") if tasks else None,
                             sources.split(",") if sources else None, limit, specs)
        settings = EvalSettings(crosshair_budget_s=budget, hypothesis_seeds=tuple(int(x) for x in seeds.split(",")),
                                hypothesis_examples=examples)
        opts = CompareOptions(tuple(e.strip() for e in evaluators.split(",") if e.strip()), settings, executor,
                              jobs, ray_address)
        with Progress(transient=True) as bar:
            tid = bar.add_task("programs", total=None)
            summary = run_compare(ds, out, opts, not no_plots,
                                  lambda done, total: bar.update(tid, completed=done, total=total))
    except (VerifierError, ValueError) as exc:
        _fail(f"evalgap compare: {exc}")
        return
    click.echo(f"{summary.candidates} candidates ({summary.programs} distinct programs); evaluation gap: "
               f"{summary.gap['count']} programs; results in {out}/summary.md")
    raise SystemExit(1 if summary.gap["count"] else EXIT_OK)


@cli.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(["nagini", "nl2postcond"]))
@click.argument("src", type=click.Path(path_type=Path))
@click.option("--data", type=click.Path(path_type=Path), required=True,
              help="The benchmark data folder (HumanEval signatures).")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), required=True, help="Output folder of .req files.")
def import_cmd(fmt: str, src: Path, data: Path, out: Path) -> None:
    """Import contracts in FORMAT from the folder SRC into .req property specs (report in OUT/IMPORT_REPORT.md).

    Exit code: 0 every file imported, 1 some could not be (reasons in the report), 2 usage error.
    """
    from evalgap.research.importing import import_folder

    try:
        rep = import_folder(fmt, src, data, out)
    except VerifierError as exc:
        _fail(f"evalgap import: {exc}")
        return
    click.echo(f"{len(rep.imported)} imported, {len(rep.skipped)} not imported; see {out}/IMPORT_REPORT.md")
    raise SystemExit(1 if rep.skipped else EXIT_OK)


def main() -> None:
    """Console-script entry point."""
    try:
        cli.main(prog_name="evalgap", standalone_mode=True)
    except KeyboardInterrupt:  # pragma: no cover - interactive
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - never show a user a traceback
        if os.environ.get("EVALGAP_DEBUG"):
            raise
        click.echo(f"evalgap: internal error: {type(exc).__name__}: {exc}\n"
                   "This is a bug in evalgap; rerun with EVALGAP_DEBUG=1 to see the traceback and report it.",
                   err=True)
        sys.exit(EXIT_USAGE)
