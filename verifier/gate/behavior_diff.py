"""Search for inputs where the base and head versions of a function behave differently.

Two searches, each in a limited worker subprocess with base and head imported under distinct package names
from the folders :func:`evalgap.verifier.gate.gitdiff.materialize` wrote:

1. CrossHair's behaviour diffing (``crosshair.diff_behavior``; :mod:`evalgap.verifier.gate.diffbehavior_worker`),
   with the parameters a version leaves unannotated typed from the other version or the spec; differences
   whose input or exception is a CrossHair proxy are dropped there.
2. A concrete worker (:mod:`evalgap.verifier.gate.diffreplay_worker`, no CrossHair) that replays every
   candidate on both versions from its Python source (a candidate that does not replay is dropped and
   counted, as a refutation that does not replay is) and runs a Hypothesis search (``find`` over the
   annotations' strategies) for a difference of its own.

Only replayed differences are reported, with what the replay did. Both searches are bounded: "no difference
found" is not a proof of equivalence unless CrossHair reports that it exhausted all paths.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
        base, head: what each version did (on the concrete replay).
        found_by: ``crosshair`` or ``hypothesis``.
    """

    args: tuple[tuple[str, str], ...]
    base: Behavior
    head: Behavior
    found_by: str = "crosshair"

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
        dropped: CrossHair's candidates that did not replay concretely (same behaviour, a timeout, or an input
            that is no Python value) and so are not reported.
        hypothesis: what the Hypothesis search did (``ran: N examples``, ``found: ...``, ``skipped: REASON``).
    """

    qualname: str
    file: str
    status: str
    differences: tuple[BehaviorDifference, ...] = ()
    paths: int = 0
    budget_s: float = 0.0
    elapsed_s: float = 0.0
    reason: str = ""
    dropped: int = 0
    hypothesis: str = ""


def _behavior(d: object) -> Behavior:
    data = d if isinstance(d, dict) else {}
    raises = data.get("raises")
    return Behavior(str(data.get("returns")) if not raises else None, str(raises) if raises else None,
                    str(data.get("describe", "")))


def _replay(base_root: Path, head_root: Path, module: str, qualname: str, candidates: list[dict[str, Any]],
            annotations: dict[str, str], strategies: dict[str, str], hypothesis_examples: int, budget_s: float,
            storage_dir: str | None, memory_bytes: int, extra_paths: tuple[str, ...]) -> dict[str, Any] | str:
    """The concrete worker's result, or the reason it gave none."""
    request = {"base_root": str(base_root), "head_root": str(head_root), "module": module, "qualname": qualname,
               "candidates": candidates, "call_timeout_s": max(1.0, min(5.0, budget_s / 2)),
               "hypothesis": {"examples": hypothesis_examples, "annotations": annotations, "strategies": strategies}
               if hypothesis_examples > 0 else None, "storage_dir": storage_dir, "extra_paths": list(extra_paths)}
    out = run_worker("diffreplay", request, Limits(cpu_s=budget_s + 30, wall_s=2 * budget_s + 60,
                                                   memory_bytes=memory_bytes))
    if out.result is None:
        return f"crash: the replay worker ended with status {out.status} (exit code {out.returncode})"
    if out.result.get("error"):
        return f"replay {out.result.get('stage', 'worker')} error: {out.result['error']}"
    return out.result


def diff_function(base_root: Path, head_root: Path, file: str, qualname: str, budget_s: float,
                  memory_bytes: int = 4 * 1024**3, annotations: dict[str, str] | None = None,
                  hypothesis_examples: int = 200, storage_dir: str | None = None,
                  strategies: dict[str, str] | None = None, extra_paths: tuple[str, ...] = (),
                  spec_types: dict[str, str] | None = None) -> DiffOutcome:
    """Diff the behaviour of ``qualname`` in ``file`` between two materialized versions.

    Args:
        base_root, head_root: the folders holding each version of the repository (or of the import root).
        file: the ``.py`` path relative to both roots.
        qualname: ``process`` or ``Class.method`` (the same parameters in both versions).
        budget_s: CrossHair CPU seconds for the search.
        memory_bytes: the workers' address-space limit.
        annotations: parameter -> type source for the parameters a version leaves unannotated (the other
            version's annotations, else the spec's types).
        hypothesis_examples: Hypothesis examples of the concrete search (0: no Hypothesis search).
        storage_dir: the shared folder of Hypothesis's unicode tables.
        strategies: parameter -> Hypothesis strategy source of the spec's domain (its narrowed types).
        extra_paths: folders both versions import third-party code from (the installed dependencies).
        spec_types: parameter -> the spec's type source, for annotations that do not resolve at run time.

    Returns:
        A :class:`DiffOutcome` holding only differences replayed concretely; never raises for anything the
        code under check does.
    """
    from evalgap.verifier.gate.gitdiff import module_name_for

    start = time.monotonic()
    module = module_name_for(file)
    request = {"base_root": str(base_root), "head_root": str(head_root), "module": module,
               "qualname": qualname, "budget_s": budget_s, "per_path_timeout_s": max(0.5, budget_s / 4),
               "annotations": annotations or {}, "extra_paths": list(extra_paths), "spec_types": spec_types or {}}
    out = run_worker("diffbehavior", request,
                     Limits(cpu_s=budget_s + 20, wall_s=2 * budget_s + 40, memory_bytes=memory_bytes))
    res = out.result or {}
    crosshair_failed = ""
    if out.result is None:
        crosshair_failed = (f"crash: the diff worker ended with status {out.status} (exit code "
                            f"{out.returncode}); {out.stderr.strip()[-300:]}")
    elif res.get("error"):
        kind = "import error" if res.get("stage") == "import" else "engine error"
        crosshair_failed = f"{kind}: {res['error']}"
    if crosshair_failed.startswith("import error"):
        return DiffOutcome(qualname, file, "unknown", budget_s=budget_s, elapsed_s=time.monotonic() - start,
                           reason=crosshair_failed)
    candidates = [{"args": dict(d.get("args", {})), "found_by": "crosshair"} for d in res.get("diffs", [])]
    replayed = _replay(base_root, head_root, module, qualname, candidates, annotations or {}, strategies or {},
                       hypothesis_examples, budget_s, storage_dir, memory_bytes, extra_paths)
    elapsed = time.monotonic() - start
    paths = int(res.get("paths", 0))
    if isinstance(replayed, str):
        return DiffOutcome(qualname, file, "unknown", (), paths, budget_s, elapsed,
                           f"{replayed}; {len(candidates)} CrossHair candidate(s) not replayed, so not reported")
    dropped = int(replayed.get("dropped", 0)) + int(replayed.get("unevaluable", 0))
    hyp = dict(replayed.get("hypothesis", {}))
    hyp_text = f"{hyp.get('status', '')}: {hyp.get('examples', 0)} examples" if hyp.get("status") in (
        "ran", "found") else str(hyp.get("status", ""))
    diffs = tuple(BehaviorDifference(tuple((str(k), str(v)) for k, v in dict(d.get("args", {})).items()),
                                     _behavior(d.get("base")), _behavior(d.get("head")),
                                     str(d.get("found_by", "crosshair")))
                  for d in replayed.get("diffs", []))
    common = {"paths": paths, "budget_s": budget_s, "elapsed_s": elapsed, "dropped": dropped, "hypothesis": hyp_text}
    if diffs:
        return DiffOutcome(qualname, file, "differs", diffs, **common)  # type: ignore[arg-type]
    dropped_text = f"; {dropped} CrossHair candidate(s) did not replay concretely and were dropped" if dropped else ""
    if crosshair_failed:
        return DiffOutcome(qualname, file, "unknown", (), reason=f"{crosshair_failed}; Hypothesis {hyp_text}",
                           **common)  # type: ignore[arg-type]
    if res.get("artefacts") and not hyp.get("status") == "ran":
        return DiffOutcome(qualname, file, "unknown", (), reason=(
            f"unsupported: {res['artefacts']} difference(s) came only from engine artefacts (a symbolic proxy, or "
            f"one version's method on the other version's instance); nothing else differed{dropped_text}"),
            **common)  # type: ignore[arg-type]
    if res.get("nondeterministic"):
        return DiffOutcome(qualname, file, "unknown", (), reason="nondeterminism: the code took different paths "
                           "for the same inputs", **common)  # type: ignore[arg-type]
    if res.get("exhausted") and not dropped and not res.get("artefacts"):
        return DiffOutcome(qualname, file, "equivalent", (), reason="all paths exhausted (within CrossHair's "
                           "modelling of Python)", **common)  # type: ignore[arg-type]
    return DiffOutcome(qualname, file, "no-difference", (), reason=(
        f"no differing input replayed within {budget_s:g} s budget ({paths} CrossHair iterations; Hypothesis "
        f"{hyp_text}){dropped_text}; not a proof"), **common)  # type: ignore[arg-type]
