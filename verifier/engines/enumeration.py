"""Bounded proofs by exhaustion: call the target on every input of a finite domain (issue 20).

When every parameter of a requirement's check function has a finite domain (:mod:`.domains`: ``bool``,
``int in LO..HI``, ``str chars "..." len LO..HI``, lists, tuples and ``Optional`` of those) of at most
:data:`MAX_INPUTS` inputs in all, the ``enumeration`` engine runs the check function on each of them in a
sandboxed worker (:mod:`.enumeration_worker`), with icontract's checks enforced:

* a failing input is replayed concretely in a fresh process (as every engine's counterexample) and is then
  ``refuted``;
* when every input ran and passed, a second worker runs the whole domain again under another
  ``PYTHONHASHSEED`` and in another random order; only when both passed, every input was counted (the count
  equals the domain's size, computed here independently of the worker) and the target's module state is the
  same before and after each run (no call counter, cache or environment change) is the verdict ``verified``,
  with the bound "exhaustive enumeration: all N inputs of the narrowed domain" beside the narrowed
  parameters, so that it is never read as an unbounded proof;
* a run that could not finish in the budget is ``no-counterexample`` (with how many inputs ran), state that
  changed is ``unknown`` (``nondeterminism``), anything else the worker reports is ``unknown``.

Not applicable (``None`` from :func:`plan`): a domain that is not finite, larger than :data:`MAX_INPUTS`, or a
check function with parameters the spec does not type (constructor arguments, stub picks, callables).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from evalgap.verifier.engines import domains
from evalgap.verifier.engines.common import cpu_limit_s, from_replay, hidden_state, replay, worker_failure
from evalgap.verifier.engines.registry import EngineJob
from evalgap.verifier.engines.shapes import spec_params
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.sandbox import runner
from evalgap.verifier.sandbox.runner import Limits, run_worker, wall_limit

if TYPE_CHECKING:
    from evalgap.verifier.project.targets import Target
    from evalgap.verifier.options import Settings

__all__ = ["EnumerationEngine", "plan", "state_roots", "MAX_INPUTS"]

#: The largest domain the engine tries (inputs in all); the budget usually stops it earlier.
MAX_INPUTS = 1_000_000


def plan(job: EngineJob) -> list[domains.Domain] | None:
    """One finite domain per parameter of ``job``'s check function, in order, or None when the engine does
    not apply (see the module docstring)."""
    if job.ob.kind not in ("function", "scenario") or job.ob.model is not None or job.ob.explore is not None:
        return None
    params = spec_params(job)
    if params is None or [p.name for p in params] != [n for n, _ in job.ob.params]:
        return None
    out = [domains.domain_of(p.type) for p in params]
    if any(d is None for d in out):
        return None
    total = 1
    for d in out:
        assert d is not None
        total *= domains.size(d)
    if total > MAX_INPUTS:
        return None
    return [d for d in out if d is not None]


def state_roots(target: Target) -> list[str]:
    """Folders whose modules' state a worker fingerprints (:mod:`evalgap.verifier.sandbox.statefp`): the
    target's paths and, for an installed module, its top-level package folder."""
    from evalgap.verifier.strength.run import module_file

    roots = list(target.paths)
    src = module_file(target)
    if src is not None:
        depth = len(target.module.split(".")) - (1 if src.name != "__init__.py" else 0)
        roots.append(str(src.parents[depth - 1] if depth >= 1 else src.parent))
    return roots


def _run_once(job: EngineJob, doms: list[domains.Domain], hash_seed: int, budget_s: float) -> Any:
    request = {"paths": [str(job.hdir), *job.target.paths], "harness": job.harness.module,
               "function": job.ob.function, "domains": doms, "budget_s": budget_s, "roots": state_roots(job.target)}
    cpu = cpu_limit_s(budget_s)
    return run_worker("enumeration", request, Limits(cpu_s=cpu, wall_s=wall_limit(cpu, 5.0),
                                                     memory_bytes=job.opts.memory_bytes), hash_seed=hash_seed), cpu


def run_enumeration(job: EngineJob, doms: list[domains.Domain]) -> EngineVerdict:
    """The ``enumeration`` engine's verdict on ``job`` over ``doms`` (from :func:`plan`); never raises for what
    the target does."""
    start = time.monotonic()
    total = 1
    for d in doms:
        total *= domains.size(d)
    ob, opts = job.ob, job.opts
    assert ob.function is not None
    seeds = (runner.HASH_SEEDS[0], runner.HASH_SEEDS[2])
    used = 0.0
    for n, seed in enumerate(seeds):
        # the second run only confirms: it gets what the first left of the budget, at least a third of it
        budget_s = opts.budget_s if n == 0 else max(opts.budget_s / 3, opts.budget_s - used)
        t0 = time.monotonic()
        out, cpu = _run_once(job, doms, seed, budget_s)
        used += time.monotonic() - t0
        res = out.result or {}
        ran = int(res.get("ran", 0))
        budget = Budget(seconds=opts.budget_s, used_s=round(used, 3), examples=ran, rejected=int(res.get("rejected", 0)),
                        hash_seeds=seeds[:n + 1])
        failed = worker_failure(out, budget, time.monotonic() - start, engine="enumeration", cpu_limit_s=cpu)
        if failed is not None:
            return failed
        outcome = res.get("outcome")
        elapsed = time.monotonic() - start
        if outcome == "error":
            kind = {"import": "import error"}.get(str(res.get("stage")), "engine error")
            return EngineVerdict("enumeration", Verdict.UNKNOWN, f"{kind}: {res.get('message')}", budget,
                                 elapsed_s=elapsed)
        if outcome == "failed":
            args = [str(a) for a in res.get("args", [])]
            rep = replay(job.hdir, job.harness, job.target, ob.function, args, hash_seed=seed)
            return from_replay(ob, rep, args, budget, "enumeration", str(res.get("exception", "")),
                               time.monotonic() - start, job.source)
        state = hidden_state(out)
        if state is None and res.get("state"):
            state = ("nondeterminism: the code under check keeps state across calls (changed during the "
                     f"enumeration: {'; '.join(map(str, res['state'][:3]))}), so its result may depend on how "
                     "often it ran")
        if state:
            return EngineVerdict("enumeration", Verdict.UNKNOWN, state, budget, elapsed_s=elapsed)
        if outcome == "incomplete":
            return EngineVerdict("enumeration", Verdict.NO_COUNTEREXAMPLE, f"no counterexample in {ran} of the "
                                 f"{total} inputs of the bounded domain within the {opts.budget_s:g} s budget "
                                 "(the enumeration did not finish, so this is not a proof)", budget,
                                 elapsed_s=elapsed)
        if outcome != "passed" or ran != total or int(res.get("total", -1)) != total:
            return EngineVerdict("enumeration", Verdict.UNKNOWN, f"engine error: the enumeration reported "
                                 f"{outcome!r} after {ran} of {total} inputs", budget, elapsed_s=elapsed)
    rejected = budget.rejected or 0
    if rejected == total:
        return EngineVerdict("enumeration", Verdict.UNKNOWN, f"vacuous precondition: all {total} inputs of the "
                             "bounded domain were rejected by the preconditions", budget,
                             elapsed_s=time.monotonic() - start)
    if rejected:
        # which inputs are "outside the preconditions" is what the target's own run reported (an icontract
        # precondition violation, whose text the target can forge): no proof rests on it
        return EngineVerdict("enumeration", Verdict.NO_COUNTEREXAMPLE, f"no counterexample among the {total} "
                             f"inputs of the bounded domain ({rejected} rejected as precondition violations "
                             "raised during the run, which the code under check could raise itself): not a proof",
                             budget, elapsed_s=time.monotonic() - start)
    bound = f"exhaustive enumeration: all {total} inputs of the narrowed domain"
    return EngineVerdict("enumeration", Verdict.VERIFIED, f"every one of the {total} inputs of the bounded domain "
                         f"ran and met the requirement ({rejected} outside the preconditions), twice, under "
                         f"PYTHONHASHSEED {seeds[0]} and {seeds[1]}, in random orders: a proof within these "
                         "bounds only", budget, elapsed_s=time.monotonic() - start, bounds=(bound,))


class EnumerationEngine:
    """The ``enumeration`` engine of the registry: not chosen with ``--engines``; run before the selected
    engines on a requirement whose domain is finite and small (:func:`plan`)."""

    name = "enumeration"
    selectable = False
    worker = "enumeration"

    def budget(self, opts: Settings) -> dict[str, Any]:
        """What of ``opts`` changes this engine's verdict (part of the cache key)."""
        return {"seconds": opts.budget_s, "memory": opts.memory_bytes, "max_inputs": MAX_INPUTS}

    def run(self, job: EngineJob) -> EngineVerdict:
        """The verdict on ``job``; ``unknown`` (unsupported) when the domain is not finite and small."""
        doms = plan(job)
        if doms is None:
            return EngineVerdict("enumeration", Verdict.UNKNOWN, "unsupported: the domain is not finite and small")
        return run_enumeration(job, doms)

