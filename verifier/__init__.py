"""evalgap's verifier: sandboxed engines, verdicts, the gap report and the ``evalgap`` CLI.

Public entry points: :func:`check_spec` (check a parsed spec against a :class:`Target`),
:func:`resolve_target`, :class:`CheckOptions`, the result records in :mod:`evalgap.verifier.findings`,
:func:`build_report` / :class:`GapReport`, and the error root :class:`VerifierError`.
CrossHair is never imported here: it runs only inside worker subprocesses.
"""

from evalgap.verifier.engine import CheckOptions, check_spec
from evalgap.verifier.errors import VerifierError
from evalgap.verifier.findings import EngineVerdict, RequirementResult, Verdict
from evalgap.verifier.gap import GapReport, build_report, exit_code
from evalgap.verifier.targets import Target, resolve_target

__all__ = ["check_spec", "CheckOptions", "VerifierError", "EngineVerdict", "RequirementResult", "Verdict",
           "GapReport", "build_report", "exit_code", "Target", "resolve_target"]
