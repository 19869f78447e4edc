"""Search for inputs where the base and head versions of a function behave differently.

Runs CrossHair's behaviour diffing (``crosshair diffbehavior``; ``crosshair.diff_behavior.diff_behavior``)
in a limited worker subprocess (:mod:`evalgap.verifier.gate.diffbehavior_worker`), with base and head imported
under distinct package names from the folders :func:`evalgap.verifier.gate.gitdiff.materialize` wrote. Like every
CrossHair search this is bounded: "no difference found" within a budget is not a proof of equivalence
unless CrossHair reports that it exhausted all paths.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from evalgap.verifier.sandbox.runner import Limits, run_worker

__all__ = ["Behavior", "BehaviorDifference", "DiffOutcome", "diff_function"]


@dataclass(frozen=True)
class Behavior:
    """What one version did on an input: ``returns`` (repr) and/or ``raises`` (repr of the exception), and
    CrossHair's one-line ``describe`` (``returns [...]``, ``raises ValueError('...')``)."""

    returns: str | None
    raises: str | None
    describe: str


@dataclass(frozen=True)
class BehaviorDifference:
    """An input on which base and head differ.

    Attributes:
        args: ``(parameter, Python source of its value)`` in signature order.
        base, head: what each version did.
    """

    args: tuple[tuple[str, str], ...]
    base: Behavior
    head: Behavior

    def call(self, name: str) -> str:
        """``name(a=1, b=[2])``."""
        return f"{name}({', '.join(f'{k}={v}' for k, v in self.args)})"


@dataclass(frozen=True)
class DiffOutcome:
    """The result of diffing one function.

    Attributes:
        qualname, file: the function.
        status: ``differs`` (at least one difference), ``equivalent`` (CrossHair exhausted every path: no
            input differs, within its modelling of Python), ``no-difference`` (none within the budget: not a
            proof), ``unknown`` (the search could not run; ``reason`` says why).
        differences: the inputs found: CrossHair's coverage-greedy selection first, then other distinct
            inputs its search found (up to 4 in all; one input can mix an explained and an unexplained change).
        paths: iterations CrossHair completed.
        budget_s: CPU seconds allowed; ``elapsed_s`` wall-clock seconds.
        reason: detail for ``unknown`` and ``no-difference``.
    """

    qualname: str
    file: str
    status: str
    differences: tuple[BehaviorDifference, ...] = ()
    paths: int = 0
    budget_s: float = 0.0
    elapsed_s: float = 0.0
    reason: str = ""


def _behavior(d: object) -> Behavior:
    data = d if isinstance(d, dict) else {}
    raises = data.get("raises")
    return Behavior(str(data.get("returns")) if not raises else None, str(raises) if raises else None,
                    str(data.get("describe", "")))


def diff_function(base_root: Path, head_root: Path, file: str, qualname: str, budget_s: float,
                  memory_bytes: int = 4 * 1024**3) -> DiffOutcome:
    """Diff the behaviour of ``qualname`` in ``file`` between two materialized versions.

    Args:
        base_root, head_root: the folders holding each version of the repository (or of the import root).
        file: the ``.py`` path relative to both roots.
        qualname: ``process`` or ``Class.method`` (same signature in both versions).
        budget_s: CrossHair CPU seconds for the search.
        memory_bytes: the worker's address-space limit.

    Returns:
        A :class:`DiffOutcome`; never raises for anything the code under check does.
    """
    from evalgap.verifier.gate.gitdiff import module_name_for

    start = time.monotonic()
    request = {"base_root": str(base_root), "head_root": str(head_root), "module": module_name_for(file),
               "qualname": qualname, "budget_s": budget_s, "per_path_timeout_s": max(0.5, budget_s / 4)}
    out = run_worker("diffbehavior", request,
                     Limits(cpu_s=budget_s + 20, wall_s=2 * budget_s + 40, memory_bytes=memory_bytes))
    elapsed = time.monotonic() - start
    res = out.result
    if res is None:
        return DiffOutcome(qualname, file, "unknown", budget_s=budget_s, elapsed_s=elapsed,
                           reason=f"crash: the diff worker ended with status {out.status} (exit code "
                                  f"{out.returncode}); {out.stderr.strip()[-300:]}")
    if res.get("error"):
        kind = "import error" if res.get("stage") == "import" else "engine error"
        return DiffOutcome(qualname, file, "unknown", budget_s=budget_s, elapsed_s=elapsed,
                           reason=f"{kind}: {res['error']}")
    diffs = tuple(BehaviorDifference(tuple((str(k), str(v)) for k, v in dict(d.get("args", {})).items()),
                                     _behavior(d.get("base")), _behavior(d.get("head")))
                  for d in res.get("diffs", []))
    paths = int(res.get("paths", 0))
    if diffs:
        return DiffOutcome(qualname, file, "differs", diffs, paths, budget_s, elapsed)
    if res.get("artefacts"):
        return DiffOutcome(qualname, file, "unknown", (), paths, budget_s, elapsed,
                           f"unsupported: {res['artefacts']} difference(s) came only from running one version's "
                           "method on the other version's instance (missing attributes); nothing else differed")
    if res.get("nondeterministic"):
        return DiffOutcome(qualname, file, "unknown", (), paths, budget_s, elapsed,
                           "nondeterminism: the code took different paths for the same inputs")
    if res.get("exhausted"):
        return DiffOutcome(qualname, file, "equivalent", (), paths, budget_s, elapsed,
                           "all paths exhausted (within CrossHair's modelling of Python)")
    return DiffOutcome(qualname, file, "no-difference", (), paths, budget_s, elapsed,
                       f"no differing input within {budget_s:g} s budget, {paths} iterations; not a proof")
