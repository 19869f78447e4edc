"""``evalgap.check``, ``evalgap.lint``, ``evalgap.load_spec`` and ``evalgap.settings``: the one way from a spec
and a target to a gap report. The CLI's ``check`` and ``lint``, the suite run and the gate call these."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Union

from evalgap.specs_lang.errors import Diagnostic, SpecError
from evalgap.verifier.cache import ResultCache, default_cache_dir
from evalgap.verifier.errors import UsageError, VerifierError
from evalgap.verifier.events import CheckFinished, CheckStarted, EventSink, RequirementFinished, RequirementStarted
from evalgap.verifier.options import Settings, resolve_settings
from evalgap.verifier.project.case import Case, locate
from evalgap.verifier.project.targets import Target, resolve_target

if TYPE_CHECKING:  # the parser and the AST load when a spec is read: a cold check starts its workers first
    from evalgap.specs_lang import ast as A
    from evalgap.specs_lang.loader import LoadedSpec

__all__ = ["check", "lint", "load_spec", "settings", "LintResult", "SpecInput", "TargetInput"]

#: What :func:`check` takes as a spec: a path (``.req``, case folder, folder of cases) or a loaded spec.
SpecInput = Union[str, "os.PathLike[str]", "LoadedSpec"]
#: What names the code under check: a case's implementation name, a module name, a ``.py`` path, a Target.
TargetInput = Union[str, "os.PathLike[str]", Target, None]


def settings(start: str | os.PathLike[str] = ".", env: Mapping[str, str] | None = None,
             **arguments: Any) -> Settings:
    """The :class:`Settings` for a run started in folder ``start``: defaults <- ``[tool.evalgap]`` of the
    first pyproject.toml in ``start`` or its parents <- the profile <- ``arguments``.

    Args:
        start: the spec's folder (where the pyproject.toml search starts).
        env: environment for ``EVALGAP_PROFILE`` (default ``os.environ``).
        arguments: keys of ``[tool.evalgap]`` (``budget``, ``jobs``, ``engines``, ``hypothesis_examples``,
            ``seed``, ``cache``, ``profile``, ``fail_on``, ``gate_fail_on``, ``analysis_timeout``); None means
            not given.

    Raises:
        UsageError: an unknown key, profile or engine, a bad ``[tool.evalgap]`` entry, a non-positive budget.
    """
    known = {"budget", "jobs", "engines", "hypothesis_examples", "seed", "cache", "profile", "analysis", "fail_on",
             "gate_fail_on", "analysis_timeout"}
    bad = sorted(set(arguments) - known)
    if bad:
        raise UsageError(f"unknown setting {bad[0]!r}; known: {', '.join(sorted(known))}")
    analysis = arguments.pop("analysis", None)
    resolved = resolve_settings(arguments, Path(start), env)
    return resolved if analysis is None else replace(resolved, analysis=bool(analysis))


def _as_target(target: TargetInput) -> str | None:
    if target is None or isinstance(target, Target):
        return None
    return os.fspath(target)


def _cache(opts: Settings) -> ResultCache | None:
    return ResultCache(opts.cache_dir or default_cache_dir()) if opts.cache else None


def _cache_is_empty(opts: Settings) -> bool:
    """Whether the result cache holds no entry of any key (a first run, a fresh CI cache): nothing can be
    answered from it, so the workers are started at once (one directory listing)."""
    from evalgap.verifier.cache import FORMAT

    root = (opts.cache_dir or default_cache_dir()) / f"v{FORMAT}"
    try:
        return not any(any(d.iterdir()) for d in root.iterdir() if d.is_dir())
    except OSError:
        return True


def _is_suite(path: Path) -> bool:
    from evalgap.verifier.project.case import MANIFEST

    return path.is_dir() and not (path / MANIFEST).is_file() and not any(path.glob("*.req"))


def load_spec(spec: str | os.PathLike[str], target: TargetInput = None, *, strict_target: bool = False,
              opts: Settings | None = None, text: str | None = None) -> tuple[LoadedSpec, Target | None, Case | None]:
    """Parse a spec (a ``.req`` file or a case folder) with its imports and run every check on it, with the
    target's signatures read in a sandboxed subprocess.

    Args:
        spec: the ``.req`` file or case folder.
        target: the code under check (see :data:`TargetInput`); None: the case's default, else the spec's
            ``target:``, else none (the checks then use only the spec's own names).
        strict_target: a target whose signatures cannot be read is an error (``lint``); else the checks
            run without its names and the import error becomes a verdict later (``check``).
        opts: settings (for the cache of signatures); None: no cache.
        text: the spec's text when it does not come from a file (``evalgap check -``): ``spec`` is then only
            its display name (``<stdin>``, used in every diagnostic), a target named by text is resolved from
            the current folder, and there is no case.

    Returns:
        ``(loaded spec, target or None, case or None)``.

    Raises:
        SpecError: every diagnostic of the spec files (syntax, names, types).
        VerifierError: the spec or target does not exist, a bad case manifest, or (strict) an unimportable target.
    """
    from evalgap.verifier.project.speccheck import load_checked

    if text is not None:
        name = _as_target(target)
        path, case = Path(spec), None
        resolved = resolve_target(name, Path.cwd()) if name is not None else None
    else:
        path, resolved, case = locate(Path(spec), _as_target(target))
    if isinstance(target, Target):
        resolved = target
    loaded, resolved = load_checked(path, resolved, strict_target=strict_target,
                                    cache=_cache(opts) if opts is not None else None, text=text)
    return loaded, resolved, case


@dataclass(frozen=True)
class LintResult:
    """What :func:`lint` found in one spec.

    Attributes:
        file: the spec file (the ``.req`` of a case folder).
        diagnostics: the spec's problems (empty when it is clean), each with file, line and column.
        rendered: the diagnostics as a compiler prints them (with carets), or the error message.
        error: a problem that is not about the spec text (a missing file, an unimportable target), or None.
        warnings: lint warnings (EG230: an ``ensures`` forbids an exception the target raises); they do not
            make the result fail.
    """

    file: str
    diagnostics: tuple[Diagnostic, ...]
    rendered: str
    error: str | None = None
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing was found."""
        return not self.diagnostics and self.error is None


def lint(spec: str | os.PathLike[str], target: TargetInput = None, *, text: str | None = None) -> LintResult:
    """Check a spec: syntax, structure, names and types, and the target's real signatures (imported in a
    sandboxed subprocess). Never raises for a problem of the spec or the target: it is in the result.

    Args:
        spec: a ``.req`` file or a case folder (with ``text``: the name the text is shown under, ``<stdin>``).
        target: as for :func:`check`.
        text: the spec's text when it does not come from a file (see :func:`load_spec`).

    Returns:
        A :class:`LintResult`.
    """
    from evalgap.specs_lang.check_raises import exception_warnings
    from evalgap.specs_lang.errors import render_diagnostic
    from evalgap.verifier.project.raises_scan import raised_exceptions

    try:
        loaded, resolved, _ = load_spec(spec, target, strict_target=True, text=text)
    except SpecError as exc:
        return LintResult(os.fspath(spec), tuple(exc.diagnostics), exc.render())
    except VerifierError as exc:
        return LintResult(os.fspath(spec), (), f"error: {exc}", str(exc))
    warns = exception_warnings(loaded.spec, raised_exceptions(resolved.file if resolved is not None else None))
    rendered = "\n\n".join(render_diagnostic(d, loaded.sources.get(d.span.file)) for d in warns)
    return LintResult(loaded.files[0], (), rendered, warnings=tuple(warns))


def _emit(on_event: EventSink | None) -> Callable[[Any], None]:
    if on_event is None:
        return lambda _e: None
    lock = threading.Lock()

    def send(event: Any) -> None:
        with lock:  # one event at a time, whichever worker thread sends it
            on_event(event)
    return send


def check(spec: SpecInput, target: TargetInput = None, *, settings: Settings | None = None,
          on_event: EventSink | None = None, tests: str | os.PathLike[str] | None = None,
          server: bool | str | os.PathLike[str] = False) -> Any:
    """Check a spec against the code it is about and build its gap report.

    Args:
        spec: a ``.req`` file, a case folder (its ``case.toml`` names the spec, the implementations and the
            expected verdicts), a folder of case folders, or a :class:`LoadedSpec` (from :func:`load_spec`).
        target: the code under check: a case's implementation name, a module name, a ``.py`` file, or a
            :class:`Target`; None: the case's default, else the spec's ``target:``.
        settings: budgets, engines, jobs, cache, analysis; None: :func:`settings` for the spec's folder
            (defaults <- ``[tool.evalgap]`` <- ``EVALGAP_PROFILE``).
        on_event: called with :mod:`evalgap.verifier.events` events (check started, requirement started and
            finished, check finished), possibly from worker threads, one at a time.
        tests: the project's pytest tests (a path), run once, traced, and mapped to requirements.
        server: run the check in the ``evalgap serve`` server (True: at its default socket; a path: that
            socket) instead of in this process: the same report, without the start-up of the imports and
            the workers. ``spec`` must then be a path (a ``.req`` file or a case folder) and ``target`` a
            name or a path.

    Returns:
        A :class:`~evalgap.verifier.report.gap.GapReport`; for a folder of case folders a
        :class:`~evalgap.verifier.project.suite.SuiteReport` (one row per case).

    Raises:
        SpecError: the spec does not parse or check (file, line, column, caret).
        VerifierError: a missing spec or target, a bad manifest, a bad setting (``UsageError``); with
            ``server``, :class:`~evalgap.verifier.server.ServerError` when no server is usable.
        Anything the target code does becomes a verdict, never an exception.
    """
    if server:
        from evalgap.verifier.server import check_via_server

        if not isinstance(spec, (str, os.PathLike)) or isinstance(target, Target):
            raise UsageError("a check through the server takes a spec path and a target name or path")
        where = None if server is True else Path(os.fspath(server))
        opts = settings or globals()["settings"](Path(spec) if Path(spec).is_dir() else Path(spec).parent)
        return check_via_server(spec, target, opts, on_event=on_event, tests=tests, path=where)
    from evalgap.verifier.engines.run import check_spec, warm_up
    from evalgap.verifier.sandbox import isolation
    from evalgap.verifier.sandbox.runner import prestart

    jobs_from = isolation.mark()  # the report says what this check's jobs (signature probe included) ran under
    send = _emit(on_event)
    if isinstance(spec, (str, os.PathLike)):  # else a LoadedSpec
        path = Path(spec)
        if _is_suite(path):
            if target is not None:
                raise UsageError("a target names one implementation; it cannot apply to a folder of cases")
            from evalgap.verifier.project.suite import run_suite

            from evalgap.verifier.events import CaseFinished

            return run_suite(path, settings or globals()["settings"](path),
                             lambda row: send(CaseFinished(row.case, row.elapsed_s, row.matches)))
        opts = settings or globals()["settings"](path if path.is_dir() else path.parent)
        if not opts.cache or _cache_is_empty(opts):
            # one fork server per kind starts while the spec is parsed and the signatures are probed (with a
            # cache that has entries: after the lookups, which may answer everything); the engine adds more
            # once it knows how many requirements need them (a 1-requirement spec at -j 2 must not start two
            # of each kind)
            warm_up(opts, 1)
            prestart(["signature-served"], 1)
        loaded, resolved, case = load_spec(path, target, opts=opts)
        spec_path = Path(loaded.files[0])
    else:
        loaded, case = spec, None
        spec_path = Path(loaded.files[0])
        opts = settings or globals()["settings"](spec_path.parent)
        if isinstance(target, Target):
            resolved = target
        elif target is not None:
            resolved = resolve_target(os.fspath(target), Path.cwd())
        else:
            resolved = None
    from evalgap.verifier.project.tests_map import run_tests
    from evalgap.verifier.report.gap import build_report, exit_code, spec_findings_from

    parsed = loaded.spec
    if resolved is None:
        if parsed.target is None:
            raise UsageError(f"{spec_path}: no target: add `target: FILE.py` to the spec or pass a target")
        resolved = resolve_target(parsed.target, spec_path.parent.resolve())
    suite = run_tests(Path(tests), resolved) if tests is not None else None
    cache = _cache(opts)
    started = time.monotonic()
    send(CheckStarted(parsed.name, resolved.display, len(parsed.all_requirements())))
    analysis_job = _background(lambda: _analysis(parsed, loaded.sources, cache)) if opts.analysis else None
    source = loaded.sources[loaded.files[0]]
    stubbed = frozenset(s.name.rsplit(".", 1)[-1] for s in parsed.stubs)
    # the gaming scan reads the target's files before any of its code runs (a target that rewrites its own
    # source while it runs cannot hide from it), and each progress line already shows the verdict the report
    # will give (a `verified` the scan turns into `unknown` is never printed as verified)
    scanned = _scan(resolved)

    def finished(r: Any) -> None:
        if scanned.findings or scanned.entropy or scanned.concurrency:
            one = build_report(parsed.name, parsed.title, str(spec_path), resolved.display, opts.budget_s, [r],
                               0.0, spec=parsed, target_file=resolved.file, sandbox="")
            r = _gaming(one, scanned, stubbed).requirements[0]
        send(RequirementFinished(r))

    results = check_spec(parsed, source, resolved, opts, progress=finished,
                         sources=loaded.sources, started=lambda rid: send(RequirementStarted(rid)))
    expected: dict[str, tuple[str, ...]] = {}
    if case is not None:
        impl = next((name for name, p in case.implementations.items() if str(p) == resolved.file), None)
        expected = case.expected.get(impl, {}) if impl else {}
    report = build_report(parsed.name, parsed.title, str(spec_path), resolved.display, opts.budget_s, results,
                          time.monotonic() - started, expected, spec=parsed, target_file=resolved.file,
                          tests=suite, sandbox=isolation.summary(jobs_from))
    if analysis_job is not None:
        found = analysis_job()
        report = replace(report, analysis=found, spec_findings=spec_findings_from(found))
    report = _gaming(report, scanned, stubbed)
    if opts.strength:
        report = _strength(report, loaded, resolved, opts)
    send(CheckFinished(parsed.name, time.monotonic() - started, exit_code(report)))
    return report


def _scan(target: Target) -> Any:
    """The gaming scan of ``target``'s file and its project imports (a
    :class:`evalgap.verifier.analysis.gaming_check.ScannedCode`)."""
    from evalgap.verifier.analysis.gaming_check import scan_target

    return scan_target(target.file, target.paths)


def _gaming(report: Any, scanned: Any, stubbed: frozenset[str] = frozenset()) -> Any:
    """Apply the gaming scan ``scanned`` (:func:`_scan`) to ``report``
    (:mod:`evalgap.verifier.analysis.gaming_check`): requirements a finding concerns become ``unknown (gaming
    suspected: ...)``, reads of randomness or the clock and concurrency turn a ``verified`` into ``unknown``,
    and each finding is a spec finding of level ``error`` (exit 1)."""
    from evalgap.verifier.analysis.gaming_check import apply_entropy, apply_findings
    from evalgap.verifier.report.gap import requirement_flags

    requirements, found = apply_findings(report.requirements, scanned)
    requirements = apply_entropy(requirements, scanned, stubbed)
    if not found and requirements == report.requirements:
        return report
    requirements = tuple(replace(r, flags=requirement_flags(r)) for r in requirements)
    return replace(report, requirements=requirements, spec_findings=(*report.spec_findings, *found))


def _strength(report: Any, loaded: LoadedSpec, target: Target, opts: Settings) -> Any:
    """Each passing requirement with its spec strength by mutation analysis (:mod:`evalgap.verifier.strength`)
    and the ``weak`` flag where it rejects few mutants."""
    from evalgap.verifier.report.gap import requirement_flags
    from evalgap.verifier.strength.run import measure_strength

    found = measure_strength(report, loaded, target, opts)
    requirements = tuple(replace(r, strength=found[r.id]) if r.id in found else r for r in report.requirements)
    requirements = tuple(replace(r, flags=requirement_flags(r)) for r in requirements)
    return replace(report, requirements=requirements)


def _analysis(parsed: A.Spec, sources: dict[str, str], cache: ResultCache | None) -> Any:
    from evalgap.verifier.analysis.run import analyze_spec_cached

    return analyze_spec_cached(parsed, sources, cache)


def _background(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Run ``fn`` in a daemon thread; the returned function waits for it and returns its result (or raises
    its exception). The Z3 analysis runs beside the checks (no serial phase; Z3 releases the GIL)."""
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
