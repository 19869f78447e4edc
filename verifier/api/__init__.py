"""evalgap: measure and close the evaluation gap of AI-written code.

The library API; every front end (the ``evalgap`` CLI, the suite run, the gate, and the integrations) is a
thin layer over these functions::

    import evalgap

    report = evalgap.check("case_studies/kvstore", settings=evalgap.Settings(budget_s=3, engines=("crosshair",)))
    for r in report.requirements:
        print(r.id, r.verdict.value if r.verdict else r.role)
    print(evalgap.exit_code(report))

=====================  ==================================================================================
:func:`check`          a spec (a ``.req`` file, a case folder, a parsed spec) against its target ->
                       :class:`GapReport`; a folder of case folders -> :class:`SuiteReport`
:func:`gate`           a change of a git repository -> :class:`GateReport`
:func:`analyze`        Z3 over the spec alone -> :class:`AnalysisReport`
:func:`lint`           syntax, names, types and the target's signatures -> :class:`LintResult`
:func:`load_spec`      parse and check a spec (with its imports) -> :class:`LoadedSpec`
:func:`author`         draft a spec from prose -> :class:`AuthorResult`
:func:`settings`       :class:`Settings` layered from defaults, ``[tool.evalgap]``, a profile and arguments
=====================  ==================================================================================

Bad input raises the packages' exceptions (:class:`SpecError` for the spec text, with file, line and
column; :class:`UsageError`, :class:`TargetError`, :class:`CaseError`, :class:`GateError` under
:class:`VerifierError`), never ``SystemExit``. Calls are safe from several threads. Names are imported on
first use, so ``import evalgap.specs_lang`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalgap._core import LintResult, check, lint, load_spec, settings
    from evalgap._tools import analyze, author, gate
    from evalgap.specs_lang.errors import SpecError
    from evalgap.specs_lang.loader import LoadedSpec
    from evalgap.verifier.analysis.spec_findings import AnalysisReport
    from evalgap.verifier.authoring.author_run import AuthorResult
    from evalgap.verifier.errors import CaseError, TargetError, UsageError, VerifierError
    from evalgap.verifier.gate.gitdiff import GateError
    from evalgap.verifier.events import CheckFinished, CheckStarted, Event, RequirementFinished, RequirementStarted
    from evalgap.verifier.findings import EngineVerdict, RequirementResult, Verdict
    from evalgap.verifier.gate.run import GateOptions, GateReport
    from evalgap.verifier.options import Settings
    from evalgap.verifier.project.suite import SuiteReport
    from evalgap.verifier.project.targets import Target
    from evalgap.verifier.report.gap import GapReport, exit_code

__all__ = ["__version__", "check", "gate", "analyze", "lint", "load_spec", "author", "settings", "exit_code",
           "Settings", "GateOptions", "GapReport", "SuiteReport", "GateReport", "AnalysisReport", "LintResult",
           "LoadedSpec", "AuthorResult", "RequirementResult", "EngineVerdict", "Verdict", "Target",
           "Event", "CheckStarted", "RequirementStarted", "RequirementFinished", "CheckFinished",
           "SpecError", "VerifierError", "UsageError", "TargetError", "CaseError", "GateError"]

_HOME = {
    "check": "evalgap._core", "lint": "evalgap._core", "load_spec": "evalgap._core", "settings": "evalgap._core",
    "LintResult": "evalgap._core",
    "gate": "evalgap._tools", "analyze": "evalgap._tools", "author": "evalgap._tools",
    "exit_code": "evalgap.verifier.report.gap", "GapReport": "evalgap.verifier.report.gap",
    "Settings": "evalgap.verifier.options", "GateOptions": "evalgap.verifier.gate.run",
    "GateReport": "evalgap.verifier.gate.run", "SuiteReport": "evalgap.verifier.project.suite",
    "AnalysisReport": "evalgap.verifier.analysis.spec_findings", "LoadedSpec": "evalgap.specs_lang.loader",
    "AuthorResult": "evalgap.verifier.authoring.author_run", "Target": "evalgap.verifier.project.targets",
    "RequirementResult": "evalgap.verifier.findings", "EngineVerdict": "evalgap.verifier.findings",
    "Verdict": "evalgap.verifier.findings",
    **{n: "evalgap.verifier.events" for n in ("Event", "CheckStarted", "RequirementStarted",
                                               "RequirementFinished", "CheckFinished")},
    "SpecError": "evalgap.specs_lang.errors",
    **{n: "evalgap.verifier.errors" for n in ("VerifierError", "UsageError", "TargetError", "CaseError")},
    "GateError": "evalgap.verifier.gate.gitdiff",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("evalgap")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
        return "0+unknown"


if TYPE_CHECKING:
    __version__: str


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (raises AttributeError for other names);
    ``__version__`` is read from the installed distribution's metadata on first use (``importlib.metadata``
    costs ~50 ms to import, which every command's start-up would pay)."""
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'evalgap' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
