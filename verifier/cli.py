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

from evalgap.specs_lang import SpecError
from evalgap.specs_lang import ast
from evalgap.verifier.case import MANIFEST, Case, load_case
from evalgap.verifier.engine import CheckOptions, check_spec
from evalgap.verifier.errors import UsageError, VerifierError
from evalgap.verifier.gap import EXIT_OK, EXIT_USAGE, GapReport, build_report, exit_code
from evalgap.verifier.options import PROFILES, default_jobs, resolve_budget
from evalgap.verifier.report_json import render_json
from evalgap.verifier.report_text import render_text
from evalgap.verifier.speccheck import load_checked
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
@click.option("--analysis/--no-analysis", default=True, show_default=True,
              help="Also run the Z3 analysis of the requirements (a conflict exits 1).")
def check(spec: Path, target_arg: str | None, fmt: str, output: Path | None, budget: float | None,
          profile: str | None, jobs: int | None, analysis: bool) -> None:
    """Check SPEC (a .req file or a case folder with case.toml) against its target and print a gap report.

    SPEC may also be a folder of case folders (e.g. case_studies/): every case's default implementation is
    checked and one summary table is printed, with whether each case matched its manifest."""
    if spec.is_dir() and not (spec / MANIFEST).is_file() and not any(spec.glob("*.req")):  # the suite
        _check_suite(spec, target_arg, fmt, output, budget, profile, jobs)
    try:
        budget_s = resolve_budget(budget, profile)
        spec_path, target, case = _locate(spec, target_arg)
        loaded, target = load_checked(spec_path, target, strict_target=False)
        parsed = loaded.spec
        source = loaded.sources[loaded.files[0]]
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
    if analysis:
        from dataclasses import replace

        from evalgap.verifier.analysis import analyze_spec

        report = replace(report, analysis=analyze_spec(parsed))
    _emit(report, fmt, output)
    raise SystemExit(exit_code(report))


def _check_suite(root: Path, target_arg: str | None, fmt: str, output: Path | None, budget: float | None,
                 profile: str | None, jobs: int | None) -> None:
    """`evalgap check FOLDER` for a folder of case folders (logic in :mod:`evalgap.verifier.suite`)."""
    import io

    from evalgap.verifier.suite import render_suite_json, render_suite_text, run_suite, suite_exit_code

    try:
        if target_arg is not None:
            raise UsageError("--target names one implementation; it cannot apply to a folder of cases")
        opts = CheckOptions(budget_s=resolve_budget(budget, profile), jobs=jobs or default_jobs())
        live = fmt == "text" and output is None
        result = run_suite(root, opts, (lambda row: click.echo(f"checked {row.case} ({row.elapsed_s:.1f} s)",
                                                                err=True)) if live else None)
    except VerifierError as exc:
        _fail(f"error: {exc}")
        return
    if fmt == "json":
        text = render_suite_json(result)
    else:
        buf = io.StringIO()
        render_suite_text(result, buf)
        text = buf.getvalue()
    if output:
        _write_atomic(output, text)
    else:
        click.echo(text, nl=False)
    raise SystemExit(suite_exit_code(result))


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
@click.option("--target", "target_arg", metavar="NAME|MODULE|FILE",
              help="Check names and signatures against this code (default: the case's default, else the "
                   "spec's `target:`); the target is imported in a sandboxed subprocess.")
def lint(specs: tuple[Path, ...], target_arg: str | None) -> None:
    """Check SPECS: syntax, structure, names and types, and the target's real signatures; exit 2 on any
    problem (all problems of a file are reported in one run)."""
    bad = False
    for sp in specs:
        try:
            path, target, _ = _locate(sp, target_arg)
            load_checked(path, target, strict_target=True)
            click.echo(f"{path}: ok")
        except SpecError as exc:
            click.echo(exc.render(), err=True)
            bad = True
        except VerifierError as exc:
            click.echo(f"error: {exc}", err=True)
            bad = True
    raise SystemExit(EXIT_USAGE if bad else EXIT_OK)


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0.01), default=5.0, show_default=True, metavar="SECONDS",
              help="Solver timeout per query.")
def analyze(spec: Path, fmt: str, timeout: float) -> None:
    """Z3 analysis of SPEC's requirements: conflicts, vacuity, redundancy, realizability, weak-spec witnesses.

    Exit 1 on a conflict or an unrealizable contract, 3 when something could not be analysed, else 0.
    """
    from evalgap.verifier.analysis import analyze_spec
    from evalgap.verifier.report_analysis import render_analysis_json
    from evalgap.verifier.spec_findings import analysis_exit_code

    try:
        parsed, _ = _load_spec(spec)
    except (SpecError, VerifierError) as exc:
        _fail(exc.render() if isinstance(exc, SpecError) else f"error: {exc}")
        return
    report = analyze_spec(parsed, timeout)
    if fmt == "json":
        click.echo(render_analysis_json(report), nl=False)
    else:
        click.echo(_analysis_text(report), nl=False)
    raise SystemExit(analysis_exit_code(report))


@cli.command("check-config")
@click.argument("spec", type=click.Path(path_type=Path))
@click.argument("config_file", type=click.Path(path_type=Path))
@click.option("--config", "config_name", metavar="NAME", help="The config block (when the spec has several).")
@click.option("--freeze", multiple=True, metavar="GLOB", help="Fields the repair must keep, e.g. "
              "'datasets[*].pii' (repeatable; also [configs] freeze in case.toml).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0.01), default=5.0, show_default=True, metavar="SECONDS")
def check_config(spec: Path, config_file: Path, config_name: str | None, freeze: tuple[str, ...], fmt: str,
                 timeout: float) -> None:
    """Check CONFIG_FILE (.json, .yaml, .toml) against SPEC's config rules; name every violated rule with
    the offending values and propose the smallest repair. Exit 1 on a violation."""
    from evalgap.verifier.analysis import check_config_file
    from evalgap.verifier.report_analysis import render_analysis_json
    from evalgap.verifier.spec_findings import analysis_exit_code

    try:
        parsed, case = _load_spec(spec)
        if case is not None and not freeze:
            freeze = case_freeze(case.folder)
        report = check_config_file(parsed, config_file, config_name, timeout, freeze)
    except (SpecError, VerifierError) as exc:
        _fail(exc.render() if isinstance(exc, SpecError) else f"error: {exc}")
        return
    if fmt == "json":
        click.echo(render_analysis_json(report), nl=False)
    else:
        click.echo(_analysis_text(report), nl=False)
    raise SystemExit(analysis_exit_code(report))


def _analysis_text(report: object) -> str:
    import io

    from evalgap.verifier.report_analysis import render_analysis_text

    buf = io.StringIO()
    render_analysis_text(report, buf)  # type: ignore[arg-type]
    return buf.getvalue()


def case_freeze(folder: Path) -> tuple[str, ...]:
    """``[configs] freeze = [...]`` from a case folder's manifest (fields a repair must keep)."""
    import tomllib

    try:
        data = tomllib.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return ()
    return tuple(data.get("configs", {}).get("freeze", ()))


def _load_spec(spec: Path) -> tuple[ast.Spec, Case | None]:
    case = None
    path = spec
    if spec.is_dir():
        reqs = sorted(spec.glob("*.req"))
        if (spec / MANIFEST).is_file() or len(reqs) != 1:
            case = load_case(spec)
            path = case.spec
        else:
            path = reqs[0]
    elif not spec.exists():
        raise UsageError(f"spec {spec} does not exist")
    from evalgap.specs_lang.check import check_spec as check_spec_text
    from evalgap.specs_lang.loader import load_spec

    loaded = load_spec(path)
    check_spec_text(loaded.spec, loaded.sources, None)  # spec-only: the analysis never runs the target
    return loaded.spec, case


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 when a file would change.")
def fmt(files: tuple[Path, ...], check_only: bool) -> None:
    """Rewrite FILES (.req) in the canonical layout, keeping comments and prose; exit 2 on a syntax error."""
    from evalgap.verifier.fmt import format_file

    changed = bad = False
    for f in files:
        try:
            res = format_file(f, check_only)
        except SpecError as exc:
            click.echo(exc.render(), err=True)
            bad = True
            continue
        changed |= res.changed
        if res.changed:
            click.echo(f"{'would reformat' if check_only else 'reformatted'} {f}")
    raise SystemExit(EXIT_USAGE if bad else (1 if check_only and changed else EXIT_OK))


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
