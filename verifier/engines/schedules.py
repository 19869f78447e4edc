"""The ``schedules`` engine: a scenario marked ``explore schedules`` is run on a controlled asyncio event loop
over its event-loop interleavings (docs/concurrency.md).

The worker (:mod:`evalgap.verifier.engines.schedules_worker`) draws inputs with Hypothesis and, for each,
explores schedules with :func:`evalgap.verifier.engines.schedloop.explore` (depth-first within a delay and
a depth bound, then PCT when that search was cut short). A failing schedule is replayed deterministically in
a fresh replay worker on the same controlled loop; only a reproduced failure is ``refuted``, and its
counterexample names the input and the schedule, with the run printed as its task steps. A pass is
``no-counterexample`` with the bounds it holds within (inputs, schedules, delays, depth, PCT runs): never
``verified``, since inputs are sampled and timers, threads and processes are outside what is explored.

This module does not import hypothesis or the target: only the workers do.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from evalgap.verifier.engines.common import from_replay, hidden_state, replay, worker_failure
from evalgap.verifier.engines.hypothesis import _storage_dir, _strategies
from evalgap.verifier.engines.registry import EngineJob
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.sandbox import runner
from evalgap.verifier.sandbox.runner import Limits, run_worker, wall_limit

if TYPE_CHECKING:
    from evalgap.verifier.options import Settings

__all__ = ["SchedulesEngine", "DEFAULT_BOUNDS", "schedule_bounds", "describe_schedule"]

#: The bounds of ``explore schedules`` when the spec gives none (names as written in the spec).
DEFAULT_BOUNDS: dict[str, int] = {"inputs": 10, "runs": 500, "delays": 2, "points": 64, "pct": 100,
                                  "bug_depth": 3, "steps": 20_000}


def schedule_bounds(written: tuple[tuple[str, int], ...], opts: Settings) -> dict[str, int]:
    """The bounds in force: :data:`DEFAULT_BOUNDS`, ``inputs`` at most ``opts.hypothesis_examples``, then the
    spec's own (``explore schedules delays 3``)."""
    b = dict(DEFAULT_BOUNDS)
    b["inputs"] = max(1, min(b["inputs"], opts.hypothesis_examples))
    b.update(dict(written))
    return b


def describe_schedule(schedule: list[int] | tuple[int, ...]) -> str:
    """``[0, 1]`` as the spec reader sees it: trailing zeros (asyncio's own order) dropped."""
    s = list(schedule)
    while s and s[-1] == 0:
        s.pop()
    return f"schedule {s}" if s else "schedule [] (asyncio's own FIFO order)"


def _bounds_text(b: dict[str, int], res: dict[str, Any]) -> tuple[str, ...]:
    n, exh, full = int(res.get("examples", 0)), int(res.get("exhaustive", 0)), int(res.get("complete", 0))
    out = [f"inputs: {n} drawn by Hypothesis (derandomized), at most {b['inputs']}",
           f"schedules: {res.get('schedules', 0)} explored; for {exh} of {n} inputs every schedule with at most "
           f"{b['delays']} delays (runs of a ready callback out of asyncio's FIFO order) over the first "
           f"{b['points']} choice points ({full} of them with no schedule left out), at most {b['runs']} "
           "depth-first runs per input"]
    if int(res.get("pct", 0)):
        out.append(f"PCT: up to {b['pct']} runs of bug depth {b['bug_depth']} for each of the {res['pct']} "
                   "inputs whose depth-first search left schedules out")
    out.append(f"steps: at most {b['steps']} per run; time is virtual; threads, processes and real I/O "
               "timing are not explored")
    return tuple(out)


def run_schedules(job: EngineJob) -> EngineVerdict:
    """The ``schedules`` verdict on ``job``'s scenario (never raises for what the target does)."""
    start = time.monotonic()
    ob, opts = job.ob, job.opts
    strategies = _strategies(job)
    if isinstance(strategies, str):
        return EngineVerdict("schedules", Verdict.UNKNOWN, f"unsupported: {strategies}", Budget(examples=0))
    assert ob.function is not None
    b = schedule_bounds(ob.explore_bounds, opts)
    request = {"paths": [str(job.hdir), *job.target.paths], "harness": job.harness.module,
               "function": ob.function, "strategies": list(strategies), "max_examples": b["inputs"],
               "storage_dir": _storage_dir(opts),
               "bounds": {"schedules": b["runs"], "delays": b["delays"], "depth": b["points"],
                          "pct_runs": b["pct"], "pct_depth": b["bug_depth"], "max_steps": b["steps"]}}
    cpu = max(30.0, 4 * opts.budget_s + 20)
    hash_seed = runner.HASH_SEEDS[0]
    out = run_worker("schedules", request, Limits(cpu_s=cpu, wall_s=wall_limit(cpu, 10),
                                                  memory_bytes=opts.memory_bytes), hash_seed=hash_seed)
    res = out.result or {}
    budget = Budget(examples=int(res.get("examples", 0)), hash_seeds=(hash_seed,))
    failed = worker_failure(out, budget, time.monotonic() - start, engine="schedules", cpu_limit_s=cpu)
    if failed is not None:
        return failed
    outcome = res.get("outcome")
    elapsed = time.monotonic() - start
    if outcome == "error":
        kind = "import error" if res.get("stage") == "import" else "engine error"
        return EngineVerdict("schedules", Verdict.UNKNOWN, f"{kind}: {res.get('message')}", budget, elapsed_s=elapsed)
    state = hidden_state(out)
    if state and outcome != "failed":
        return EngineVerdict("schedules", Verdict.UNKNOWN, state, budget, elapsed_s=elapsed)
    if outcome == "step-limit":
        return EngineVerdict("schedules", Verdict.UNKNOWN, f"budget exhausted: a schedule of input "
                             f"{', '.join(res.get('args', []))} ran more than {b['steps']} steps (a livelock, or "
                             "a program larger than the step bound)", budget, elapsed_s=elapsed)
    if outcome == "unsatisfiable":
        return EngineVerdict("schedules", Verdict.UNKNOWN, "too much filtering: no input met the preconditions",
                             budget, elapsed_s=elapsed)
    if outcome == "passed":
        bounds = _bounds_text(b, res)
        return EngineVerdict("schedules", Verdict.NO_COUNTEREXAMPLE, f"no failing schedule in "
                             f"{res.get('schedules', 0)} schedules over {res.get('examples', 0)} inputs "
                             "(systematic exploration within the bounds, not a proof)", budget,
                             elapsed_s=elapsed, bounds=bounds)
    if outcome != "failed":
        return EngineVerdict("schedules", Verdict.UNKNOWN, f"engine error: unexpected worker outcome {outcome!r}",
                             budget, elapsed_s=elapsed)
    args = [str(a) for a in res.get("args", [])]
    schedule = [int(c) for c in res.get("schedule", [])]
    rep = replay(job.hdir, job.harness, job.target, ob.function, args, hash_seed=hash_seed, schedule=schedule)
    v = from_replay(ob, rep, args, budget, "schedules", str(res.get("exception", "")), time.monotonic() - start,
                    job.source)
    if v.verdict is not Verdict.REFUTED:
        return v
    steps = [str(s) for s in rep.data.get("steps", [])]
    shown = describe_schedule(schedule)
    trace = "\n".join(f"  {i}. {s}" for i, s in enumerate(steps, 1))
    return replace(v, counterexample=f"{v.counterexample} under {shown}", schedule=tuple(schedule),
                   reason=f"{v.reason}; the failing {shown} was replayed deterministically on a fresh controlled "
                   f"event loop, step by step:\n{trace}")


class SchedulesEngine:
    """The ``schedules`` engine of the registry: not chosen with ``--engines``; runs every requirement whose
    scenario says ``explore schedules``."""

    name = "schedules"
    selectable = False
    worker = "schedules"

    def budget(self, opts: Settings) -> dict[str, Any]:
        """What of ``opts`` changes this engine's verdict (part of the cache key; the spec's own bounds are
        part of the obligation)."""
        return {"inputs": min(DEFAULT_BOUNDS["inputs"], opts.hypothesis_examples), "memory": opts.memory_bytes,
                "bounds": DEFAULT_BOUNDS}

    def run(self, job: EngineJob) -> EngineVerdict:
        """The schedules' verdict (never raises for what the target does)."""
        return run_schedules(job)
