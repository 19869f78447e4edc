"""evalgap's verifier: sandboxed engines, verdicts, the gap report and the ``evalgap`` CLI.

Public entry points: :func:`check_spec` (check a parsed spec against a :class:`Target`),
:func:`resolve_target`, :class:`CheckOptions`, the result records in :mod:`evalgap.verifier.findings`,
:func:`build_report` / :class:`GapReport`, and the error root :class:`VerifierError`.
CrossHair is never imported here: it runs only inside worker subprocesses.

The names are imported lazily (PEP 562 ``__getattr__``): importing a submodule (a worker, the fork
server, the CLI) does not pay for the engine, the translators and the spec language.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalgap.verifier.engine import CheckOptions, check_spec
    from evalgap.verifier.errors import VerifierError
    from evalgap.verifier.findings import EngineVerdict, RequirementResult, Verdict
    from evalgap.verifier.gap import GapReport, build_report, exit_code
    from evalgap.verifier.targets import Target, resolve_target

__all__ = ["check_spec", "CheckOptions", "VerifierError", "EngineVerdict", "RequirementResult", "Verdict",
           "GapReport", "build_report", "exit_code", "Target", "resolve_target"]

_HOME = {"check_spec": "engine", "CheckOptions": "engine", "VerifierError": "errors", "EngineVerdict": "findings",
         "RequirementResult": "findings", "Verdict": "findings", "GapReport": "gap", "build_report": "gap",
         "exit_code": "gap", "Target": "targets", "resolve_target": "targets"}


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (raises AttributeError for other names)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'evalgap.verifier' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"evalgap.verifier.{home}"), name)
    globals()[name] = value
    return value
