"""The evaluators of ``evalgap compare``: each gives one :class:`EvalVerdict` per candidate, running the
candidate only in sandboxed worker processes (:func:`evalgap.verifier.sandbox.runner.run_worker`).

==================  =====================================================================================
evaluator           what it does
==================  =====================================================================================
``tests``           the benchmark's own ``check(candidate)``; pass = ``no-counterexample``, fail = ``refuted``
``ground-truth``    candidate vs reference on every ground-truth input (HumanEval+), benchmark ``atol``
``crosshair``       CrossHair on the **differential** spec (:mod:`evalgap.research.diffspec`) through
                    :func:`evalgap.verifier.engines.run.check_spec`; budget recorded
``crosshair-domain`` the same with the benchmark's input domain assumed (:mod:`evalgap.research.domain_spec`):
                    the search stays inside the domain the recall rule counts
``crosshair-prop``  CrossHair on the task's **property** spec (``Task.spec_text``), when it has one
``spec-inputs``     the property spec's postconditions checked concretely on every ground-truth input
``hypothesis``      differential Hypothesis property, recorded seeds, literal-constant mining **off**
``hypothesis-const`` the same with Hypothesis's constant mining **on** (its default)
``mutation``        differential on inputs grown from the task's visible inputs by EvalPlus-style type-aware
                    mutation (:mod:`evalgap.research.input_mutation`); one run per seed
==================  =====================================================================================

CPU seconds are the user+system time of the worker processes an evaluator started (``RUSAGE_CHILDREN``
deltas; evaluators of one candidate run one after another in one process, so the deltas do not mix) plus, for
the CrossHair evaluators, the CPU seconds the engine's CrossHair workers report (they are forked by a server
process, not by the evaluator: the CPU limit, budget + 15 s, for a worker killed at it).
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from evalgap.research.dataset import Candidate, Task
from evalgap.research.diffspec import BEYOND_CROSSHAIR, float_bound, write_differential
from evalgap.research.verdicts import EvalVerdict
from evalgap.verifier.findings import Verdict
from evalgap.verifier.sandbox.runner import Limits, WorkerOutcome, run_worker, wall_limit
from evalgap.verifier.sandbox.workers import WorkerKind, register
from evalgap.verifier.sandbox.scratch import scratch_dir

__all__ = ["EvalSettings", "EVALUATORS", "evaluate", "DEFAULT_EVALUATORS"]

_WORKER = register(WorkerKind("research-eval", "evalgap.research.eval_worker")).name

#: extra CrossHair attempts after a worker was killed by its wall-clock limit (not its CPU budget): on a loaded
#: machine the wall limit can be hit before the CPU budget is spent; a run that is killed every time stays
#: ``unknown`` (never another verdict).
WALL_RETRIES = 2


def _wall(cpu_s: float) -> float:
    """Wall-clock limit of a worker allowed ``cpu_s`` CPU seconds: 3x + 10 s, stretched by the machine load."""
    return max(3 * cpu_s + 10, wall_limit(cpu_s))


@dataclass(frozen=True)
class EvalSettings:
    """Budgets and seeds of the evaluators (all recorded in each verdict's ``detail``).

    Attributes:
        crosshair_budget_s: CrossHair CPU seconds per requirement (per function here: one postcondition).
        hypothesis_seeds: the seeds Hypothesis runs with, one run each.
        hypothesis_examples: ``max_examples`` per seed.
        tests_cpu_s: CPU limit of a tests run (seconds).
        ground_truth_cpu_s: CPU limit of a ground-truth run over all inputs (seconds).
        per_input_cpu_s: minimum CPU seconds per ground-truth input (the limit is the larger of this and 20x
            the reference's time on that input).
        mutation_inputs: new inputs per seed of the ``mutation`` evaluator (it runs one pass per seed of
            ``hypothesis_seeds``).
        mutation_cpu_s: CPU seconds of one ``mutation`` run, all seeds together (it stops there: ``pass``).
    """

    crosshair_budget_s: float = 20.0
    hypothesis_seeds: tuple[int, ...] = (0, 1, 2)
    hypothesis_examples: int = 200
    tests_cpu_s: float = 20.0
    ground_truth_cpu_s: float = 120.0
    per_input_cpu_s: float = 1.0
    mutation_inputs: int = 1000
    mutation_cpu_s: float = 30.0


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _from_outcome(name: str, out: WorkerOutcome, accept_reason: str, detail: tuple[tuple[str, Any], ...],
                  crash_rejects: bool) -> EvalVerdict:
    res = out.result
    if res is None:
        reason = {"timeout": "timeout: the worker exceeded its wall-clock limit",
                  "cpu-limit": "CPU limit: the worker hit its CPU limit",
                  "memory": "memory limit: the worker ran out of memory"}.get(
            out.status, f"crash: the worker ended without a result (exit code {out.returncode})")
        # for tests and the ground truth a program that hangs or kills the run fails it (benchmark rule)
        return EvalVerdict(name, Verdict.REFUTED if crash_rejects else Verdict.UNKNOWN, reason, detail=detail)
    extra = tuple((k, res[k]) for k in ("inputs_run", "inputs_skipped", "examples", "seed", "hypothesis_version")
                  if k in res)
    if res.get("outcome") == "pass":
        return EvalVerdict(name, Verdict.NO_COUNTEREXAMPLE, str(res.get("reason", accept_reason)),
                           detail=detail + extra)
    if res.get("outcome") == "fail":
        return EvalVerdict(name, Verdict.REFUTED, str(res.get("reason", "")), counterexample=res.get("counterexample"),
                           detail=detail + extra)
    reason = str(res.get("reason"))
    if not reason.startswith(("spec error", "no strategy")) and ": timeout:" not in reason:
        reason = f"engine error: {reason}"
    return EvalVerdict(name, Verdict.UNKNOWN, reason, detail=detail + extra)


def _tests(task: Task, cand: Candidate, s: EvalSettings) -> EvalVerdict:
    if not task.tests:
        return EvalVerdict("tests", Verdict.UNKNOWN, "no tests: the task has no benchmark tests")
    req = {"mode": "tests", "candidate": cand.code, "entry_point": task.entry_point, "tests": task.tests}
    out = run_worker(_WORKER, req, Limits(cpu_s=s.tests_cpu_s, wall_s=_wall(s.tests_cpu_s)))
    return _from_outcome("tests", out, "the benchmark's tests pass", (), crash_rejects=True)


def _ground_truth(task: Task, cand: Candidate, s: EvalSettings) -> EvalVerdict:
    if not task.ground_truth_inputs or not task.reference:
        return EvalVerdict("ground-truth", Verdict.UNKNOWN, "no ground truth: the task has no inputs or reference")
    req = {"mode": "ground-truth", "candidate": cand.code, "reference": task.reference,
           "entry_point": task.entry_point, "inputs": task.inputs(), "atol": task.atol,
           "per_input_cpu_s": s.per_input_cpu_s}
    out = run_worker(_WORKER, req, Limits(cpu_s=s.ground_truth_cpu_s, wall_s=_wall(s.ground_truth_cpu_s)))
    return _from_outcome("ground-truth", out, "agrees with the reference", (("atol", task.atol),),
                         crash_rejects=True)


def _hypothesis(task: Task, cand: Candidate, s: EvalSettings, constants: str) -> EvalVerdict:
    name = "hypothesis" if constants == "off" else "hypothesis-const"
    req = {"mode": "hypothesis", "candidate": cand.code, "reference": task.reference,
           "entry_point": task.entry_point, "param_types": [list(p) for p in task.param_types],
           "contract": task.contract, "atol": task.atol, "seeds": list(s.hypothesis_seeds),
           "float_bound": float_bound(task),
           "max_examples": s.hypothesis_examples, "constants": constants,
           "per_input_cpu_s": s.per_input_cpu_s}
    cpu = 60.0 + 2.0 * len(s.hypothesis_seeds) * s.hypothesis_examples / 10
    detail = (("seeds", list(s.hypothesis_seeds)), ("max_examples", s.hypothesis_examples),
              ("constant_mining", constants))
    out = run_worker(_WORKER, req, Limits(cpu_s=cpu, wall_s=_wall(cpu)))
    return _from_outcome(name, out, "no counterexample", detail, crash_rejects=False)


def _mutation(task: Task, cand: Candidate, s: EvalSettings) -> EvalVerdict:
    if not task.reference:
        return EvalVerdict("mutation", Verdict.UNKNOWN, "no reference: a differential evaluator needs one")
    visible = task.visible_inputs()
    if not visible:
        return EvalVerdict("mutation", Verdict.UNKNOWN, "no visible inputs: nothing to mutate")
    req = {"mode": "mutation", "candidate": cand.code, "reference": task.reference, "entry_point": task.entry_point,
           "param_types": [list(p) for p in task.param_types], "contract": task.contract, "atol": task.atol,
           "visible": visible, "seeds": list(s.hypothesis_seeds), "inputs": s.mutation_inputs,
           "per_input_cpu_s": s.per_input_cpu_s, "cpu_budget_s": s.mutation_cpu_s}
    # the run stops itself at its budget; one input may still take 20x the reference's time (+ the load's slack)
    cpu = s.mutation_cpu_s + 15.0
    detail = (("seeds", list(s.hypothesis_seeds)), ("inputs_per_seed", s.mutation_inputs),
              ("cpu_budget_s", s.mutation_cpu_s))
    out = run_worker(_WORKER, req, Limits(cpu_s=cpu, wall_s=_wall(cpu)))
    return _from_outcome("mutation", out, "no counterexample", detail, crash_rejects=False)


def _crosshair_on(name: str, spec_text: str, folder: Path, module: str, s: EvalSettings) -> EvalVerdict:
    from evalgap.specs_lang import SpecError, check_structure, parse
    from evalgap.verifier.engines.common import cpu_limit_s
    from evalgap.verifier.engines.run import check_spec
    from evalgap.verifier.options import Settings
    from evalgap.verifier.project.targets import Target

    detail: tuple[tuple[str, Any], ...] = (("budget_s", s.crosshair_budget_s),)
    try:
        spec = parse(spec_text, str(folder / "spec.req"))
        check_structure(spec)
    except SpecError as exc:
        return EvalVerdict(name, Verdict.UNKNOWN, f"spec error: {exc}", detail=detail)
    target = Target(module, (str(folder),), module, str(folder / f"{module}.py"))
    for attempt in range(1 + WALL_RETRIES):
        results = check_spec(spec, spec_text, target, Settings(budget_s=s.crosshair_budget_s, jobs=1, engines=("crosshair",),
                                                                        cache=False, analysis=False))
        checked = [r for r in results if r.role != "precondition" and r.verdict is not None]
        if not checked:
            return EvalVerdict(name, Verdict.UNKNOWN, "spec error: the spec has no checked requirement",
                               detail=detail)
        worst = next((r for r in checked if r.verdict is Verdict.REFUTED), None) \
            or next((r for r in checked if r.verdict is Verdict.UNKNOWN), None) \
            or next((r for r in checked if r.verdict is Verdict.NO_COUNTEREXAMPLE), None) or checked[0]
        ev = worst.verdicts[0]
        if not (worst.verdict is Verdict.UNKNOWN and "wall-clock limit" in ev.reason):
            break
    assert worst.verdict is not None
    detail += (("requirement", worst.id), ("paths", ev.budget.paths), ("crosshair_cpu_s", ev.budget.used_s),
               ("attempts", attempt + 1))
    # the engine forks CrossHair workers from a server process, so the RUSAGE_CHILDREN delta of
    # :func:`evaluate` does not see them: report their own CPU seconds (the CPU limit for a worker killed at it)
    limit = cpu_limit_s(s.crosshair_budget_s)
    unseen = sum(v.budget.used_s if v.budget.used_s is not None else (limit if "CPU limit" in v.reason else 0.0)
                 for r in checked for v in r.verdicts if v.engine == "crosshair")
    return EvalVerdict(name, worst.verdict, f"{worst.id}: {ev.reason}", cpu_s=unseen,
                       counterexample=ev.counterexample, detail=detail)


def _crosshair(task: Task, cand: Candidate, s: EvalSettings, name: str = "crosshair",
               in_domain: bool = False) -> EvalVerdict:
    if task.task_id in BEYOND_CROSSHAIR:
        return EvalVerdict(name, Verdict.UNKNOWN, f"beyond CrossHair: {BEYOND_CROSSHAIR[task.task_id]}",
                           detail=(("budget_s", s.crosshair_budget_s),))
    if not task.reference:
        return EvalVerdict(name, Verdict.UNKNOWN, "no reference: a differential spec needs one")
    with scratch_dir("evalgap-diff-") as tmp:
        ds = write_differential(task, cand.code, Path(tmp), in_domain)
        return _crosshair_on(name, ds.spec_text, ds.folder, ds.module, s)


def _write_prop_target(folder: Path, task: Task, cand: Candidate) -> None:
    """Write ``eg_cand.py`` (the candidate) and ``eg_prop.py`` (the module a property spec reads)."""
    (folder / "eg_cand.py").write_text(cand.code, encoding="utf-8")
    # the spec reads the entry point and its pure helpers from one module; the helpers shadow
    # same-named functions of the candidate only there, never inside the candidate's own module
    (folder / "eg_prop.py").write_text(f"from eg_cand import *  # noqa: F403\nfrom eg_cand import "
                                       f"{task.entry_point}\n\n{task.spec_helpers}\n", encoding="utf-8")


def _crosshair_property(task: Task, cand: Candidate, s: EvalSettings) -> EvalVerdict:
    if not task.spec_text:
        return EvalVerdict("crosshair-prop", Verdict.NOT_FORMALIZED, "no property spec for this task")
    with scratch_dir("evalgap-prop-") as tmp:
        _write_prop_target(Path(tmp), task, cand)
        return _crosshair_on("crosshair-prop", task.spec_text, Path(tmp), "eg_prop", s)


def _spec_inputs(task: Task, cand: Candidate, s: EvalSettings) -> EvalVerdict:
    from evalgap.specs_lang import SpecError, check_structure, parse
    from evalgap.translators.errors import TranslationError
    from evalgap.translators.to_icontract import build_harness

    if not task.spec_text:
        return EvalVerdict("spec-inputs", Verdict.NOT_FORMALIZED, "no property spec for this task")
    if not task.ground_truth_inputs:
        return EvalVerdict("spec-inputs", Verdict.UNKNOWN, "no inputs: the task has no ground-truth inputs")
    try:
        spec = parse(task.spec_text, task.spec_path or "spec.req")
        check_structure(spec)
        harness = build_harness(spec, "eg_prop", "eg_prop_harness")
    except (SpecError, TranslationError) as exc:
        return EvalVerdict("spec-inputs", Verdict.UNKNOWN, f"spec error: {exc}")
    fns = [[ob.req_id, ob.function] for ob in harness.obligations if ob.kind == "function" and ob.function]
    if not fns:
        return EvalVerdict("spec-inputs", Verdict.UNKNOWN, "spec error: no postcondition to check")
    with scratch_dir("evalgap-specin-") as tmp:
        _write_prop_target(Path(tmp), task, cand)
        (Path(tmp) / "eg_prop_harness.py").write_text(harness.source, encoding="utf-8")
        req = {"mode": "spec-inputs", "paths": [tmp], "harness": "eg_prop_harness", "functions": fns,
               "inputs": task.inputs(), "entry_point": task.entry_point, "per_input_cpu_s": s.per_input_cpu_s,
               "spec_module": "eg_prop"}
        out = run_worker(_WORKER, req, Limits(cpu_s=s.ground_truth_cpu_s, wall_s=_wall(s.ground_truth_cpu_s)))
    return _from_outcome("spec-inputs", out, "holds on every input", (), crash_rejects=True)


EVALUATORS: dict[str, Callable[[Task, Candidate, EvalSettings], EvalVerdict]] = {
    "spec-inputs": _spec_inputs,
    "tests": _tests,
    "ground-truth": _ground_truth,
    "crosshair": _crosshair,
    "crosshair-domain": lambda t, c, s: _crosshair(t, c, s, "crosshair-domain", in_domain=True),
    "crosshair-prop": _crosshair_property,
    "hypothesis": lambda t, c, s: _hypothesis(t, c, s, "off"),
    "hypothesis-const": lambda t, c, s: _hypothesis(t, c, s, "on"),
    "mutation": _mutation,
}

#: what ``evalgap compare`` runs without ``--evaluators`` (the ground truth is always added).
DEFAULT_EVALUATORS = ("tests", "hypothesis", "crosshair")


def evaluate(name: str, task: Task, cand: Candidate, settings: EvalSettings) -> EvalVerdict:
    """Run evaluator ``name`` on ``cand``, measuring its CPU seconds (worker processes) and wall time.

    Raises:
        KeyError: ``name`` is not in :data:`EVALUATORS`.
    """
    fn = EVALUATORS[name]
    cpu0, wall0 = _children_cpu(), time.monotonic()
    try:
        v = fn(task, cand, settings)
    except Exception as exc:  # noqa: BLE001 - a harness bug must not lose the other verdicts
        v = EvalVerdict(name, Verdict.UNKNOWN, f"engine error: {type(exc).__name__}: {exc}")
    # v.cpu_s: CPU seconds of processes the evaluator used but did not start (CrossHair's forked workers)
    return EvalVerdict(v.evaluator, v.verdict, v.reason, round(_children_cpu() - cpu0 + v.cpu_s, 3),
                       round(time.monotonic() - wall0, 3), v.counterexample, v.detail)
