"""``evalgap.gate``, ``evalgap.analyze`` and ``evalgap.author``: the library calls behind ``evalgap gate``,
``evalgap analyze``/``check-config`` and ``evalgap author``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evalgap.specs_lang.loader import LoadedSpec
from evalgap.verifier.errors import UsageError
from evalgap.verifier.project.case import MANIFEST, Case, case_freeze, load_case
from evalgap.verifier.sandbox.scratch import scratch_dir

__all__ = ["gate", "analyze", "author", "load_spec_only"]


def gate(repo: str | os.PathLike[str] = ".", spec: str | os.PathLike[str] = "", *, base: str = "HEAD~1",
         head: str | None = None, patch: str | os.PathLike[str] | None = None, staged: bool = False,
         options: Any = None) -> Any:
    """Gate a change of a git repository: the requirements it breaks or fixes (only those the changed
    functions reach), behaviour changes no requirement explains, and evaluator-gaming findings in its lines.

    Args:
        repo: a folder inside the git repository.
        spec: the ``.req`` file (repository-relative: read from each version).
        base: the base revision. head: the head revision (None: HEAD). patch: a diff applied to ``base``
            instead of ``head``. staged: gate the index against HEAD (pre-commit); excludes head and patch.
        options: a :class:`~evalgap.verifier.gate.run.GateOptions` (None: from the settings of ``repo``,
            defaults <- ``[tool.evalgap]`` <- ``EVALGAP_PROFILE``, :meth:`GateOptions.from_settings`).

    Returns:
        A :class:`~evalgap.verifier.gate.run.GateReport`.

    Raises:
        GateError: the change cannot be materialized, or the spec or target cannot be found.
        SpecError: the spec does not parse or is structurally wrong. UsageError: contradictory arguments.
    """
    from evalgap.verifier.gate.run import GateOptions, run_gate

    if not os.fspath(spec):
        raise UsageError("gate needs a spec (--spec FILE.req)")
    if options is None:
        from evalgap.verifier.options import resolve_settings

        options = GateOptions.from_settings(resolve_settings({}, Path(repo)))
    opts = options
    if staged:
        if head or patch:
            raise UsageError("--staged gates the index against HEAD; do not combine it with --head/--patch")
        from evalgap.verifier.gate.gitdiff import write_staged_patch

        with scratch_dir("evalgap-staged-") as tmp:
            return run_gate(Path(repo), Path(spec), "HEAD", None, write_staged_patch(Path(repo), Path(tmp)), opts)
    return run_gate(Path(repo), Path(spec), base, head, Path(patch) if patch is not None else None, opts)


def load_spec_only(spec: str | os.PathLike[str]) -> tuple[LoadedSpec, Case | None]:
    """Parse and check a spec without its target (the analysis never runs the target).

    Args:
        spec: a ``.req`` file, a case folder, or a folder holding exactly one ``.req``.

    Raises:
        SpecError: the spec does not parse or check. UsageError: it does not exist. CaseError: a bad manifest.
    """
    from evalgap.specs_lang.check import check_spec as check_spec_text
    from evalgap.specs_lang.loader import load_spec

    case = None
    path = Path(spec)
    if path.is_dir():
        reqs = sorted(path.glob("*.req"))
        if (path / MANIFEST).is_file() or len(reqs) != 1:
            case = load_case(path)
            path = case.spec
        else:
            path = reqs[0]
    elif not path.exists():
        raise UsageError(f"spec {path} does not exist")
    loaded = load_spec(path)
    check_spec_text(loaded.spec, loaded.sources, None)
    return loaded, case


def analyze(spec: str | os.PathLike[str] | LoadedSpec, *, timeout_s: float = 5.0, config: str | os.PathLike[str]
            | None = None, config_name: str | None = None, freeze: tuple[str, ...] = ()) -> Any:
    """Ask Z3 about the spec alone (conflicts with a minimal unsat core, vacuity, redundancy, realizability,
    weak-spec witnesses), or, with ``config``, check a configuration file against the spec's ``config`` rules
    and propose the smallest repair.

    Args:
        spec: a ``.req`` file, a case folder, or a loaded spec.
        timeout_s: solver seconds per query.
        config: a ``.json``/``.yaml``/``.toml`` configuration file to check (``check-config``).
        config_name: the spec's config block (when it has several). freeze: fields a repair must keep
            (globs such as ``datasets[*].pii``; default: the case manifest's ``[configs] freeze``).

    Returns:
        An :class:`~evalgap.verifier.analysis.spec_findings.AnalysisReport`.

    Raises:
        SpecError, UsageError, CaseError: as :func:`load_spec_only`; VerifierError: an unreadable config.
    """
    from evalgap.verifier.analysis.run import analyze_spec, check_config_file

    if isinstance(spec, LoadedSpec):
        loaded, case = spec, None
    else:
        loaded, case = load_spec_only(spec)
    if config is None:
        return analyze_spec(loaded.spec, timeout_s)
    if case is not None and not freeze:
        freeze = case_freeze(case.folder)
    return check_config_file(loaded.spec, Path(config), config_name, timeout_s, freeze)


def author(prose: str | os.PathLike[str], *, target: str | os.PathLike[str] | None = None,
           function: str | None = None, reference: str | os.PathLike[str] | None = None, engine: Any = None,
           engine_note: str = "pattern engine", prompter: Any = None,
           output: str | os.PathLike[str] | None = None) -> Any:
    """Draft a ``.req`` spec from prose (Markdown, text, or a ``.py`` file's docstrings).

    Args:
        prose: the input file. target: the ``.py`` file the prose is about (its signatures bind names).
        function: the function the prose describes, when the target has several.
        reference: a reference implementation; clauses failing on it at the examples' inputs are rejected.
        engine: a drafting engine (default: the offline pattern catalogue); engine_note names it in the draft.
        prompter: ``(ask, say)`` callables for an interactive review, or None.
        output: where the caller will write the spec (named in lint messages; nothing is written here).

    Returns:
        An :class:`~evalgap.verifier.authoring.author_run.AuthorResult` (text, draft, summary, conflicts).

    Raises:
        TranslationError: the prose cannot be read or bound to a function. VerifierError: the draft does not lint.
    """
    from evalgap.translators.from_prose import pattern_engine
    from evalgap.verifier.authoring.author_run import AuthorOptions, run_author

    opts = AuthorOptions(Path(prose), Path(target) if target is not None else None, function,
                         Path(output) if output is not None else None,
                         Path(reference) if reference is not None else None)
    return run_author(opts, engine or pattern_engine, engine_note, prompter)
