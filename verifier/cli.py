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
def check(spec: Path, target_arg: str | None, fmt: str, output: Path | None, budget: float | None,
          profile: str | None, jobs: int | None) -> None:
    """Check SPEC (a .req file or a case folder with case.toml) against its target and print a gap report."""
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
    results = check_spec(parsed, source, target, CheckOptions(budget_s=budget_s, jobs=jobs or default_jobs()),
                         sources=loaded.sources)
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
@click.argument("input_path", type=click.Path(path_type=Path), metavar="INPUT")
@click.option("--target", type=click.Path(path_type=Path), help="The .py file the prose is about (its "
              "signatures bind the names; parsed, never imported).")
@click.option("--function", "function", help="The function the prose describes (when the target has several).")
@click.option("--engine", type=click.Choice(["patterns", "llm"]), default="patterns", show_default=True)
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the spec here (default: stdout).")
@click.option("--reference", type=click.Path(path_type=Path, exists=True), help="A reference implementation: "
              "clauses failing on it (at the examples' inputs) are rejected.")
@click.option("--interactive", is_flag=True, help="Walk through each sentence: accept, edit or mark informal.")
@click.option("--base-url", help="LLM engine: chat-completions API root (or EVALGAP_LLM_BASE_URL).")
@click.option("--model", help="LLM engine: model name (or EVALGAP_LLM_MODEL).")
@click.option("--api-key", help="LLM engine: API key (or EVALGAP_LLM_API_KEY).")
@click.option("--max-repairs", type=click.IntRange(min=0), default=2, show_default=True)
@click.option("--llm-timeout", type=float, default=60.0, show_default=True, metavar="SECONDS")
def author(input_path: Path, target: Path | None, function: str | None, engine: str, output: Path | None,
           reference: Path | None, interactive: bool, base_url: str | None, model: str | None,
           api_key: str | None, max_repairs: int, llm_timeout: float) -> None:
    """Draft a .req spec from prose INPUT (Markdown, text, or a .py file's docstrings); exit 1 when a drafted
    clause contradicted an example (it is rejected and reported)."""
    from evalgap.translators import TranslationError
    from evalgap.translators.from_prose import pattern_engine
    from evalgap.verifier.author_run import AuthorOptions, run_author

    try:
        eng, note = pattern_engine, "pattern engine"
        if engine == "llm":
            from evalgap.translators.llm_client import LLMConfig, llm_engine

            cfg = LLMConfig.from_env(base_url, model, api_key, llm_timeout, max_repairs)
            eng, note = llm_engine(cfg), f"llm engine, model {cfg.model} at {cfg.base_url}"
        prompter = ((lambda text, default: str(click.prompt(text, default=default, show_default=bool(default)))),
                    click.echo) if interactive else None
        res = run_author(AuthorOptions(input_path, target, function, output, reference), eng, note, prompter)
    except (TranslationError, VerifierError, OSError) as exc:
        _fail(f"error: {exc}")
        return
    if output:
        _write_atomic(output, res.text)
    else:
        click.echo(res.text, nl=False)
    click.echo(res.summary_text(), err=True, nl=False)
    raise SystemExit(1 if res.conflicts else EXIT_OK)


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


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--to", "fmt", type=click.Choice(["icontract", "pytest"]), required=True,
              help="icontract: a module of contract-wrapped check functions; pytest: plus Hypothesis tests.")
@click.option("--target", "target_arg", metavar="NAME|MODULE|FILE", help="The code the module wraps.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the module here (default: stdout).")
def export(spec: Path, fmt: str, target_arg: str | None, output: Path | None) -> None:
    """Export SPEC's requirements as an icontract module or a pytest module of Hypothesis properties."""
    from evalgap.verifier.export import export_text

    try:
        spec_path, target, _ = _locate(spec, target_arg)
        loaded, target = load_checked(spec_path, target, strict_target=False)
        if target is None:
            raise UsageError(f"{spec_path}: no target: add `target: FILE.py` to the spec or pass --target")
        text = export_text(loaded.spec, target, fmt)
    except SpecError as exc:
        _fail(exc.render())
        return
    except VerifierError as exc:
        _fail(f"error: {exc}")
        return
    if output:
        _write_atomic(output, text)
    else:
        click.echo(text, nl=False)


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
