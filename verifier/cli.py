"""The ``evalgap`` command line.

Exit codes, the same for every command: 0 nothing refuted and nothing unknown; 1 something refuted;
2 usage or spec error; 3 nothing refuted but something unknown. Precedence: 2, then 1, then 3.
Commands take their output streams from click, so tests call them in-process with ``CliRunner``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

import click

from evalgap.specs_lang import SpecError
from evalgap.specs_lang.ast import Spec
from evalgap.verifier.cache import ResultCache, default_cache_dir
from evalgap.verifier.case import MANIFEST, Case, load_case
from evalgap.verifier.engine import CheckOptions, check_spec, warm_up
from evalgap.verifier.errors import UsageError, VerifierError
from evalgap.verifier.emit_tests import emit_tests
from evalgap.verifier.gap import EXIT_OK, EXIT_REFUTED, EXIT_USAGE, GapReport, build_report, exit_code, parse_fail_on
from evalgap.verifier.options import PROFILES, default_jobs, parse_engines, resolve_budget, resolve_settings
from evalgap.verifier.speccheck import load_checked
from evalgap.verifier.outputs import FORMATS, Destination, plan_outputs, render
from evalgap.verifier.explain import explain as explain_requirement
from evalgap.verifier.report_diff import diff_reports, render_diff
from evalgap.verifier.report_json import load_report, schema_text
from evalgap.verifier.targets import Target, resolve_target
from evalgap.verifier.tests_map import run_tests

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
@click.option("--fail-on", "fail_on", default="refuted,unknown", show_default=True, metavar="LIST",
              help="What makes the exit code non-zero: refuted,unknown,bounded,not-formalized,smell "
                   "(exit 1; unknown exits 3 when nothing else fails).")
@click.option("--tests", "tests_path", type=click.Path(path_type=Path), metavar="PATH",
              help="Run the project's pytest tests at PATH (sandboxed) and map them to requirements by "
                   "tracing which target functions each test executes.")
@click.option("--engines", metavar="LIST", help="Engines per requirement, comma-separated: crosshair, "
              "hypothesis (default: both).")
@click.option("--seed", type=int, help="Hypothesis seed for research runs (default: derandomized).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache ($EVALGAP_CACHE_DIR).")
@click.option("--emit-tests", "emit_dir", type=click.Path(path_type=Path), metavar="DIR",
              help="Write a pytest reproducer file per refutation into DIR.")
def check(spec: Path, target_arg: str | None, formats: tuple[str, ...], outputs: tuple[str, ...],
          budget: float | None, profile: str | None, jobs: int | None, fail_on: str,
          tests_path: Path | None, analysis: bool, engines: str | None, seed: int | None, no_cache: bool,
          emit_dir: Path | None) -> None:
    """Check SPEC (a .req file or a case folder with case.toml) against its target and print a gap report.

    SPEC may also be a folder of case folders (e.g. case_studies/): every case's default implementation is
    checked and one summary table is printed, with whether each case matched its manifest."""
    if spec.is_dir() and not (spec / MANIFEST).is_file() and not any(spec.glob("*.req")):  # the suite
        if len(formats) > 1 or any(f not in ("text", "json") for f in formats) or len(outputs) > 1 or any(
                "=" in o for o in outputs):
            _fail("error: a folder of cases takes one --format (text or json) and at most one plain --output")
        _check_suite(spec, target_arg, formats[0] if formats else "text", Path(outputs[0]) if outputs else None,
                     budget, profile, jobs)
    try:
        fail = parse_fail_on(fail_on)
        cli_opts = {"budget": budget, "profile": profile, "jobs": jobs, "seed": seed,
                    "engines": parse_engines(engines) if engines is not None else None,
                    "cache": False if no_cache else None}
        settings = resolve_settings(cli_opts, spec if spec.is_dir() else spec.parent)
        budget_s = settings.budget_s
        opts = CheckOptions(budget_s=budget_s, jobs=settings.jobs, engines=settings.engines,
                            hypothesis_examples=settings.hypothesis_examples, seed=settings.seed,
                            cache=settings.cache)
        if not opts.cache:
            warm_up(opts)  # fork servers start while the spec is parsed (with the cache: after lookups)
        cache = ResultCache(default_cache_dir()) if opts.cache else None
        spec_path, target, case = _locate(spec, target_arg)
        loaded, target = load_checked(spec_path, target, strict_target=False, cache=cache)
        parsed = loaded.spec
        source = loaded.sources[loaded.files[0]]
        if target is None:
            if parsed.target is None:
                raise UsageError(f"{spec_path}: no target: add `target: FILE.py` to the spec or pass --target")
            target = resolve_target(parsed.target, spec_path.parent.resolve())
        dests = plan_outputs(formats, outputs, parsed.name)
        suite = run_tests(tests_path, target) if tests_path is not None else None
    except SpecError as exc:
        _fail(exc.render())
        return
    except VerifierError as exc:
        _fail(f"error: {exc}")
        return
    started = time.monotonic()
    # the Z3 analysis of the spec runs beside the checks (no serial phase; Z3 releases the GIL)
    analysis_job = _background(lambda: _analysis(parsed, loaded.sources, cache)) if analysis else None
    with _progress(len(parsed.all_requirements())) as tick:
        results = check_spec(parsed, source, target, opts, progress=tick, sources=loaded.sources)
    expected: dict[str, tuple[str, ...]] = {}
    if case is not None:
        impl = next((name for name, p in case.implementations.items() if str(p) == target.file), None)
        expected = case.expected.get(impl, {}) if impl else {}
    report = build_report(parsed.name, parsed.title, str(spec_path), target.display, budget_s, results,
                          time.monotonic() - started, expected, spec=parsed, target_file=target.file,
                          tests=suite)
    if analysis_job is not None:
        from dataclasses import replace

        from evalgap.verifier.gap import spec_findings_from

        found = analysis_job()
        report = replace(report, analysis=found, spec_findings=spec_findings_from(found))
    if emit_dir is not None:
        try:
            written = emit_tests(results, emit_dir, parsed.name, target.display)
        except OSError as exc:
            _fail(f"error: cannot write reproducer tests to {emit_dir}: {exc}")
            return
        click.echo(f"wrote {len(written)} reproducer test(s) to {emit_dir}", err=True)
    for dest in dests:
        _emit(report, dest)
    raise SystemExit(exit_code(report, fail))


def _analysis(parsed: Spec, sources: dict[str, str], cache: ResultCache | None) -> Any:
    from evalgap.verifier.analysis import analyze_spec_cached

    return analyze_spec_cached(parsed, sources, cache)


def _background(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Run ``fn`` in a daemon thread; the returned function waits for it and returns its result (or raises
    its exception)."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, fn()))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box.append((False, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def wait() -> Any:
        thread.join()
        ok, value = box[0]
        if not ok:
            raise value
        return value
    return wait


def _progress(total: int) -> Any:
    """The progress bar of :func:`evalgap.verifier.report_text.check_progress` on a terminal; off a terminal a
    no-op (without importing rich)."""
    if sys.stderr.isatty():
        from evalgap.verifier.report_text import check_progress

        return check_progress(total, sys.stderr)
    return contextlib.nullcontext(lambda _r: None)


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


def _emit(report: GapReport, dest: Destination) -> None:
    if dest.path is not None:
        _write_atomic(dest.path, render(report, dest.fmt, color=False))
    elif dest.fmt == "text":
        from evalgap.verifier.report_text import render_text

        render_text(report, sys.stdout)
    else:
        click.echo(render(report, dest.fmt), nl=False)


@cli.command()
def schema() -> None:
    """Print the JSON Schema of the JSON gap report (the version in its schema_version)."""
    click.echo(schema_text(), nl=False)


@cli.command()
@click.argument("report", type=click.Path(path_type=Path))
@click.argument("req_id", metavar="ID")
def explain(report: Path, req_id: str) -> None:
    """Print one requirement's full story from a JSON gap REPORT: prose, formal text, verdicts, evidence."""
    try:
        click.echo(explain_requirement(load_report(report), req_id), nl=False)
    except VerifierError as exc:
        _fail(f"error: {exc}")
    raise SystemExit(EXIT_OK)


@cli.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--all", "show_all", is_flag=True, help="Also list requirements whose verdict did not change.")
def diff(old: Path, new: Path, show_all: bool) -> None:
    """Show verdict changes from OLD to NEW JSON gap reports; exit 1 when a requirement broke (became refuted)."""
    try:
        changes = diff_reports(load_report(old), load_report(new))
    except VerifierError as exc:
        _fail(f"error: {exc}")
        return
    click.echo(render_diff(changes, show_same=show_all), nl=False)
    raise SystemExit(EXIT_REFUTED if any(c.kind == "broke" for c in changes) else EXIT_OK)


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


def _load_spec(spec: Path) -> tuple[Spec, Case | None]:
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
        eng: Any = pattern_engine
        note = "pattern engine"
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
@click.argument("fmt", metavar="FORMAT", type=click.Choice(["nagini", "nl2postcond", "icontract", "deal", "pep316"]))
@click.argument("src", type=click.Path(path_type=Path))
@click.option("--data", type=click.Path(path_type=Path), default=None,
              help="The benchmark data folder (HumanEval signatures; nagini and nl2postcond only).")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), required=True, help="Output folder of .req files.")
def import_cmd(fmt: str, src: Path, data: Path | None, out: Path) -> None:
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
