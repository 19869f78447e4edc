"""Hypothesis beside CrossHair: run a requirement as a Hypothesis property in a worker, replay its
shrunk counterexample concretely, and map the outcome to a verdict.

* a failure is ``refuted`` only after :func:`evalgap.verifier.engines.run.replay` reproduced it in a fresh
  process with contracts enforced (the same rules as CrossHair's counterexamples);
* a pass is ``no-counterexample`` with its budget in examples (valid ones), the examples rejected by
  preconditions (``assume()``) and their share, and the seed of a research run;
* too much filtering (some examples rejected and fewer than half of ``max_examples`` met the
  preconditions, or none at all) is ``unknown`` (``too much filtering``): the budget was not searched.

This module does not import hypothesis: only :mod:`evalgap.verifier.engines.hypothesis_worker` does, in its
subprocess.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgap.translators.to_icontract import Harness, Obligation
from evalgap.verifier.engines.common import cpu_limit_s, from_replay, hidden_state, replay, worker_failure
from evalgap.verifier.engines.registry import EngineJob
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.sandbox import runner
from evalgap.verifier.sandbox.runner import Limits, run_worker, wall_limit
from evalgap.verifier.project.targets import Target

if TYPE_CHECKING:
    from evalgap.verifier.options import Settings

__all__ = ["run_hypothesis", "HypothesisEngine"]


def _storage_dir(opts: Settings) -> str:
    """Where workers share Hypothesis's unicode tables: ``$EVALGAP_HYPOTHESIS_HOME``, else one folder per user,
    ``$XDG_CACHE_HOME/evalgap/hypothesis-home`` (``~/.cache/evalgap/hypothesis-home``), whatever the result
    cache's folder (``--no-cache``, ``$EVALGAP_CACHE_DIR``, a CI job's fresh cache): the tables are built once
    per user (about 4.6 s), not once per cache folder. The folder holds no results; jobs only read it."""
    env = os.environ.get("EVALGAP_HYPOTHESIS_HOME")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "evalgap" / "hypothesis-home")


def run_hypothesis(ob: Obligation, harness: Harness, hdir: Path, target: Target, opts: Settings, source: str,
                   strategies: tuple[str, ...] | str) -> EngineVerdict:
    """Hypothesis's verdict on one requirement.

    Args:
        ob: a ``function`` or ``scenario`` obligation.
        harness, hdir: the harness and the folder it is written in.
        target: the code under check.
        opts: ``hypothesis_examples``, ``seed``, ``budget_s`` (sets the worker's CPU limit), ``memory_bytes``.
        source: the spec text (for quoting failed checks).
        strategies: one strategy source per parameter, or the reason none could be built.

    Returns:
        The :class:`EngineVerdict` with engine ``hypothesis``; never raises for what the target does.
    """

    start = time.monotonic()
    n = opts.hypothesis_examples
    if isinstance(strategies, str):
        return EngineVerdict("hypothesis", Verdict.UNKNOWN, f"unsupported: {strategies}", Budget(examples=0))
    assert ob.function is not None
    if len(strategies) != len(ob.params):  # a call with missing arguments would fail in the harness itself
        return EngineVerdict("hypothesis", Verdict.UNKNOWN, f"unsupported: {len(strategies)} strategies for the "
                             f"{len(ob.params)} parameters of {ob.function}", Budget(examples=0))
    request = {"paths": [str(hdir), *target.paths], "harness": harness.module, "function": ob.function,
               "strategies": list(strategies), "max_examples": n, "seed": opts.seed,
               "storage_dir": _storage_dir(opts)}
    # the budget bounds Hypothesis's CPU too (its examples are its own budget): an example that never returns
    # is stopped within about 1.25x the budget (at least 3 CPU s, for the smallest budgets). RLIMIT_CPU counts
    # whole seconds, so the limit is rounded up here and not padded further: a padding of half a second
    # rounded 4.5 s up to 5 (endless loop at --budget 3: 6.4 s wall before, see docs/engine.md)
    cpu = max(3.0, float(math.ceil(cpu_limit_s(opts.budget_s))))
    hash_seed = runner.HASH_SEEDS[1]  # not the seed of CrossHair's first run: no verdict rests on one hash order
    out = run_worker("hypothesis", request,
                     Limits(cpu_s=cpu, wall_s=wall_limit(cpu, 5.0), memory_bytes=opts.memory_bytes),
                     hash_seed=hash_seed)
    res = out.result or {}
    valid, rejected = int(res.get("valid", 0)), int(res.get("rejected", 0))
    budget = Budget(examples=valid, rejected=rejected, seed=opts.seed, hash_seeds=(hash_seed,))
    failed = worker_failure(out, budget, time.monotonic() - start, engine="hypothesis", cpu_limit_s=cpu)
    if failed is not None:
        return failed
    outcome = res.get("outcome")
    elapsed = time.monotonic() - start
    if outcome == "error":
        stage = res.get("stage")
        kind = {"import": "import error", "strategy": "unsupported"}.get(str(stage), "engine error")
        return EngineVerdict("hypothesis", Verdict.UNKNOWN, f"{kind}: {res.get('message')}", budget,
                             elapsed_s=elapsed)
    state = hidden_state(out)
    if state and outcome != "failed":
        return EngineVerdict("hypothesis", Verdict.UNKNOWN, state, budget, elapsed_s=elapsed)
    if outcome == "flaky":
        return EngineVerdict("hypothesis", Verdict.UNKNOWN, "nondeterminism: a failure did not reproduce when "
                             "Hypothesis ran the same example again", budget, elapsed_s=elapsed)
    total = valid + rejected
    rate = f"{100 * rejected / total:.0f}%" if total else "100%"
    if outcome == "unsatisfiable" or (outcome == "passed" and rejected and valid < n // 2):
        return EngineVerdict("hypothesis", Verdict.UNKNOWN, f"too much filtering: only {valid} of the {n} "
                             f"examples asked for met the preconditions ({rejected} rejected, {rate} filtered)",
                             budget, elapsed_s=elapsed)
    if outcome == "passed":
        how = (f"seed {opts.seed}" if opts.seed is not None else "derandomized") + f", PYTHONHASHSEED={hash_seed}"
        return EngineVerdict("hypothesis", Verdict.NO_COUNTEREXAMPLE, f"no counterexample in {valid} random "
                             f"examples ({how}; {rejected} rejected by preconditions, {rate} filtered); "
                             "random testing, not a proof", budget, elapsed_s=elapsed)
    if outcome == "failed":
        args = [str(a) for a in res.get("args", [])]
        rep = replay(hdir, harness, target, ob.function, args, hash_seed=hash_seed)
        v = from_replay(ob, rep, args, budget, "hypothesis", str(res.get("exception", "")),
                        time.monotonic() - start, source)
        if v.verdict is Verdict.UNKNOWN and v.reason.startswith("not reproduced") and rep.outcome == "passed":
            # a concrete example failed in one process and passed in another under the same hash seed
            return replace(v, reason=f"nondeterminism: the same example failed in Hypothesis's run and passed "
                           f"when replayed ({v.reason})")
        return v
    return EngineVerdict("hypothesis", Verdict.UNKNOWN, f"engine error: unexpected worker outcome {outcome!r}",
                         budget, elapsed_s=elapsed)


def _strategies(job: EngineJob) -> tuple[str, ...] | str:
    """One Hypothesis strategy source per parameter of the check function, or why none can be built."""
    from evalgap.translators.errors import TranslationError
    from evalgap.translators.to_hypothesis import obligation_strategies, requirement_strategies

    try:
        if job.spec is not None:  # every parameter of the check function (constructor, steps, stub picks)
            return obligation_strategies(job.spec, job.req, job.owner, job.ob.params)
        return requirement_strategies(job.req, job.owner)
    except TranslationError as exc:
        return str(exc)


class HypothesisEngine:
    """The ``hypothesis`` engine of the registry (:mod:`evalgap.verifier.engines.registry`)."""

    name = "hypothesis"
    selectable = True
    worker = "hypothesis"
    @property
    def hash_seed(self) -> int:
        """The ``PYTHONHASHSEED`` its workers run under (its fork servers are started with it)."""
        return runner.HASH_SEEDS[1]

    def budget(self, opts: Settings) -> dict[str, Any]:
        """What of ``opts`` changes this engine's verdict (part of the cache key)."""
        return {"examples": opts.hypothesis_examples, "seed": opts.seed, "memory": opts.memory_bytes}

    def run(self, job: EngineJob) -> EngineVerdict:
        """Hypothesis's verdict on ``job``'s obligation (never raises for what the target does)."""
        return run_hypothesis(job.ob, job.harness, job.hdir, job.target, job.opts, job.source, _strategies(job))
