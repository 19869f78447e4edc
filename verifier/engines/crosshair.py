"""The CrossHair engine: symbolic execution of one harness check function in a sandboxed worker
(:mod:`evalgap.verifier.engines.crosshair_worker`), its counterexample replayed concretely."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalgap.translators.to_icontract import Harness, Obligation
from evalgap.verifier.engines.common import (CROSSHAIR_CAVEAT, cpu_limit_s, INTEGRITY_REASONS, from_replay,
                                             hidden_state, replay, split_call, worker_failure)
from evalgap.verifier.engines.registry import EngineJob
from evalgap.verifier.engines.shapes import MAX_LENGTH, MAX_SHAPES, Shape, describe, shapes_of
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.options import Settings
from evalgap.verifier.project.targets import Target
from evalgap.verifier.sandbox import runner
from evalgap.verifier.sandbox.runner import Limits, run_worker, wall_limit

__all__ = ["run_crosshair", "CrossHairEngine"]


_REFUTING = ("POST_FAIL", "EXEC_ERR", "POST_ERR")


def run_crosshair(ob: Obligation, harness: Harness, hdir: Path, target: Target, opts: Settings,
                  source: str, shapes: list[Shape] | None = None) -> EngineVerdict:
    """CrossHair's verdict on one obligation: a run under the first of the process's hash seeds and, when
    it is ``verified``, a second run under another (:data:`~evalgap.verifier.sandbox.runner.HASH_SEEDS`):
    ``verified`` only when both are; a counterexample the second run finds is replayed under its seed (and
    under the first, to show the dependence) and ``refuted``; a second run that only runs out of budget is
    ``no-counterexample`` (not a proof under that seed, nothing found); any other difference is ``unknown
    (depends on the hash seed)``. With ``shapes`` (:func:`.shapes.shapes_of`) and a budget of at least
    :data:`MIN_SHARE_S` per shape, each run analyses the shapes one after the other in its one worker
    (``verified`` only when every shape's paths are exhausted). Never raises for what the target does."""
    first, _, second = runner.HASH_SEEDS

    def run(seed: int) -> EngineVerdict:
        split = shapes if shapes and opts.budget_s / len(shapes) >= MIN_SHARE_S else None
        if split and seed != first:  # the confirming run takes the lengths longest first: code that acts on
            split = split[::-1]      # the order it meets lengths in (first call of a length) shows in one run
        return _one_run(ob, harness, hdir, target, opts, source, seed, split)

    # the confirming run's server (its own interpreter: the hash seed is fixed at start-up) starts while the
    # first run works, so a `verified` does not wait for it; a refutation leaves it idle (~0.4 CPU s)
    runner.prestart(["crosshair"], 1, hash_seed=second)
    v1 = run(first)
    if v1.verdict is not Verdict.VERIFIED:
        return v1
    v2 = run(second)
    budget = replace(v1.budget, hash_seeds=(first, second),
                     used_s=(v1.budget.used_s or 0.0) + (v2.budget.used_s or 0.0))
    elapsed = v1.elapsed_s + v2.elapsed_s
    if v2.verdict is Verdict.VERIFIED:
        return replace(v1, budget=budget, elapsed_s=elapsed)
    if v2.verdict is Verdict.REFUTED:
        also = ""
        if v2.counterexample is not None:  # the refuting input (no arguments at all is an input too)
            assert ob.function is not None
            again = replay(hdir, harness, target, ob.function, [a for _, a in v2.args], hash_seed=first)
            if again.outcome == "passed":
                also = f"; the same input passes under PYTHONHASHSEED={first}"
        return replace(v2, reason=f"{v2.reason} under PYTHONHASHSEED={second} (the run under PYTHONHASHSEED="
                       f"{first} was verified: the result depends on the hash seed"
                       f"{' or on the order of the list lengths (that run took them shortest first)' if shapes else ''}"
                       f"{also})", budget=budget,
                       elapsed_s=elapsed)
    if v2.reason.startswith(INTEGRITY_REASONS):
        return replace(v2, budget=budget, elapsed_s=elapsed)
    if v2.verdict is Verdict.NO_COUNTEREXAMPLE:
        # the second run ran out of budget before exhausting its paths: no proof under that seed, and no
        # counterexample either, which is exactly what `no-counterexample` says (not evidence of a dependence)
        return replace(v2, reason=f"{v2.reason} under PYTHONHASHSEED={second} (the run under PYTHONHASHSEED="
                       f"{first} exhausted its paths; a proof needs both)", budget=budget, elapsed_s=elapsed)
    return EngineVerdict("crosshair", Verdict.UNKNOWN, f"depends on the hash seed: verified under PYTHONHASHSEED="
                         f"{first}, but under PYTHONHASHSEED={second}: {v2.verdict.value} ({v2.reason})", budget,
                         elapsed_s=elapsed)


#: The least CPU seconds a length-split run gets per shape; with a smaller share the run is not split.
MIN_SHARE_S = 0.5


def _split_note(conds: list[dict[str, Any]], shapes: list[Shape], verified: bool) -> str:
    """What a length-split run reached per shape, for the verdict's reason."""
    split = ", ".join(sorted({n for s in shapes for n, _ in s}))
    if verified:
        return (f", for each length of {split} separately ({len(shapes)} runs: "
                f"{'; '.join(describe(s) for s in shapes)})")
    status: dict[str, bool] = {}
    for c in conds:
        key = describe(tuple((str(n), int(k)) for n, k in c.get("shape") or ()))
        ok = c.get("status") == "CONFIRMED" and int(c.get("confirmed_paths", 0)) > 0
        status[key] = status.get(key, True) and ok
    done = [k for k, ok in status.items() if ok]
    rest = [k for k, ok in status.items() if not ok] + [f"{describe(s)} (not reached)" for s in shapes
                                                        if describe(s) not in status]
    return (f"; one run per length of {split}: paths exhausted for {'; '.join(done) or 'none'}, not for "
            f"{'; '.join(rest)}")


def _one_run(ob: Obligation, harness: Harness, hdir: Path, target: Target, opts: Settings, source: str,
             hash_seed: int, shapes: list[Shape] | None = None) -> EngineVerdict:
    start = time.monotonic()
    n_conditions = max(1, len(ob.checks) if ob.kind == "function" else 1)
    per_condition = opts.budget_s / n_conditions
    request: dict[str, Any] = {"paths": [str(hdir), *target.paths], "harness": harness.module,
                               "function": ob.function, "budget_s": per_condition,
                               "per_path_timeout_s": max(0.5, per_condition / 2), "target_module": target.module}
    if shapes:
        request["shapes"] = [[list(p) for p in shape] for shape in shapes]
        request["params"] = [n for n, _ in ob.params]
    cpu = cpu_limit_s(opts.budget_s)
    limits = Limits(cpu_s=cpu, wall_s=wall_limit(cpu, 5.0),
                    memory_bytes=opts.memory_bytes)
    out = run_worker("crosshair", request, limits, hash_seed=hash_seed)
    used = out.result.get("cpu_s") if out.result else None
    conds: list[dict[str, Any]] = list(out.result.get("conditions", [])) if out.result else []
    paths = sum(int(c.get("confirmed_paths", 0)) for c in conds) if conds else None
    budget = Budget(seconds=opts.budget_s, used_s=used, paths=paths, hash_seeds=(hash_seed,))
    failed = worker_failure(out, budget, time.monotonic() - start, cpu_limit_s=cpu)
    if failed is not None:
        return failed
    if not conds:
        return EngineVerdict("crosshair", Verdict.UNKNOWN, "engine error: CrossHair found no condition to check",
                             budget, elapsed_s=time.monotonic() - start)
    messages = [m for c in conds for m in c.get("messages", [])]
    refuting = [m for m in messages if m.get("state") in _REFUTING]
    if refuting:
        m = refuting[0]
        text = str(m.get("message", ""))
        if "NotDeterministic" in text:
            return EngineVerdict("crosshair", Verdict.UNKNOWN, "nondeterminism: the code took different paths "
                                 "for the same inputs", budget, elapsed_s=time.monotonic() - start)
        if "SideEffectDetected" in text:
            return EngineVerdict("crosshair", Verdict.UNKNOWN, f"blocked side effect: {text}", budget,
                                 elapsed_s=time.monotonic() - start)
        args = split_call(str(m.get("invocation") or ""))
        if m.get("state") == "POST_ERR":  # the target's own code raising in a condition (a result's __eq__)
            rep = replay(hdir, harness, target, ob.function, args) if args is not None and ob.function else None
            if rep is None or not (rep.outcome == "exception" and rep.data.get("origin") == "target"):
                return EngineVerdict("crosshair", Verdict.UNKNOWN, f"spec error: a condition raised: {text}",
                                     budget, elapsed_s=time.monotonic() - start)
            return from_replay(ob, rep, args or [], budget, "crosshair", text, time.monotonic() - start, source)
        if args is None:
            return EngineVerdict("crosshair", Verdict.UNKNOWN, f"not reproduced: CrossHair's counterexample "
                                 f"cannot be rebuilt as Python values ({text})", budget,
                                 elapsed_s=time.monotonic() - start)
        assert ob.function is not None
        rep = replay(hdir, harness, target, ob.function, args, hash_seed=hash_seed)
        v = from_replay(ob, rep, args, budget, "crosshair", text, time.monotonic() - start, source)
        found = next((c for c in conds if m in c.get("messages", [])), None)
        if shapes and found is not None and found.get("shape"):
            v = replace(v, reason=f"{v.reason} (the run for "
                        f"{describe(tuple((str(n), int(k)) for n, k in found['shape']))})")
        state = hidden_state(out)
        if state and v.verdict is not Verdict.REFUTED:
            return replace(v, reason=f"{state}; {v.reason}")
        return v
    state = hidden_state(out)
    if state:
        return EngineVerdict("crosshair", Verdict.UNKNOWN, state, budget, elapsed_s=time.monotonic() - start)
    unmet = [any(m.get("state") == "PRE_UNSAT" for m in c.get("messages", [])) for c in conds]
    # split by length, a shape none of whose inputs meets the preconditions is only not exhausted (below)
    if (all(unmet) if shapes else any(unmet)):
        return EngineVerdict("crosshair", Verdict.UNKNOWN, "vacuous precondition: CrossHair found no input "
                             "meeting the preconditions", budget, elapsed_s=time.monotonic() - start)
    elapsed = time.monotonic() - start
    every_shape = not shapes or int((out.result or {}).get("shapes_run", 0)) == len(shapes)
    if every_shape and all(c.get("status") == "CONFIRMED" and int(c.get("confirmed_paths", 0)) > 0
                           for c in conds):
        note = _split_note(conds, shapes, True) if shapes else ""
        return EngineVerdict("crosshair", Verdict.VERIFIED, CROSSHAIR_CAVEAT + note, budget, elapsed_s=elapsed)
    if any(int(c.get("confirmed_paths", 0)) > 0 for c in conds) if shapes else all(
            int(c.get("confirmed_paths", 0)) > 0 for c in conds):
        note = _split_note(conds, shapes, False) if shapes else ""
        return EngineVerdict("crosshair", Verdict.NO_COUNTEREXAMPLE, f"no counterexample within "
                             f"{budget.describe()}{note}; not all paths were explored, so this is not a proof",
                             budget, elapsed_s=elapsed)
    return EngineVerdict("crosshair", Verdict.UNKNOWN, f"budget exhausted: CrossHair's own deadline fired: no "
                         f"execution path completed within {opts.budget_s:g} s", budget, elapsed_s=elapsed)


class CrossHairEngine:
    """The ``crosshair`` engine of the registry (:mod:`evalgap.verifier.engines.registry`)."""

    name = "crosshair"
    selectable = True
    worker = "crosshair"

    def budget(self, opts: Settings) -> dict[str, Any]:
        """What of ``opts`` changes this engine's verdict (part of the cache key)."""
        return {"seconds": opts.budget_s, "memory": opts.memory_bytes,
                "length_split": [MAX_SHAPES, MAX_LENGTH, MIN_SHARE_S, "one worker, confirming run longest first"]}

    def run(self, job: EngineJob) -> EngineVerdict:
        """CrossHair's verdict on ``job``'s obligation, split by list length where :func:`.shapes.shapes_of`
        says so (never raises for what the target does)."""
        return run_crosshair(job.ob, job.harness, job.hdir, job.target, job.opts, job.source, shapes_of(job))
