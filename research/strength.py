"""Spec strength of every evaluator of a compare run, by mutation analysis of the tasks' references.

``evalgap compare --mutants N`` adds, for every task of the run that has a reference, up to ``N`` first-order
mutants of its entry point (:func:`evalgap.verifier.strength.mutants.mutants_of`: the standard operators ROR,
AOR, LCR, UOI, CRP, SDL and RVR, picked round-robin, deterministically) as extra candidates of source
:data:`MUTANT_SOURCE`. Every evaluator runs on them like on any candidate (sandboxed, same budgets), so the
strength figure is measured with the very settings the recall figure is:

* a mutant the **ground truth** accepts (it agrees with the reference on every ground-truth input) is *likely
  equivalent* (differential testing against the original; mutation analysis cannot decide equivalence, Budd
  and Angluin 1982) and left out of the ratio, and counted;
* the **strength** of an evaluator is the share of the other (non-equivalent) mutants it rejects
  (``refuted``): ``killed / scored``, with its 95 % Wilson interval; its ``unknown``s stay in the
  denominator (a mutant not killed is not killed) and are counted apart.

This is the measure nl2postcond calls *completeness* (Endres et al., FSE 2024, §3: a correct postcondition's
share of buggy code mutants it kills, "Percent codes killed" in the artefact's qualitative sheet), here over
mechanical mutants of the reference rather than LLM-written buggy programs, and per evaluator: the benchmark's
tests (their mutation score), the differential spec, the property spec. Mutant candidates never enter the gap,
recall, false-refutation or pass@1 figures.
"""

from __future__ import annotations

from typing import Any, Iterable

from evalgap.research.dataset import Candidate, Task
from evalgap.research.stats import wilson
from evalgap.research.verdicts import CandidateResult, outcome

__all__ = ["MUTANT_SOURCE", "mutant_candidates", "strength_table", "split_mutants"]

#: the source of every mutant candidate (kept apart from the benchmark's own candidates in every figure)
MUTANT_SOURCE = "reference-mutant"
_GT = "ground-truth"


def mutant_candidates(tasks: Iterable[Task], per_task: int) -> list[Candidate]:
    """Up to ``per_task`` mutants of each task's reference entry point, as candidates.

    Args:
        tasks: the tasks (those without a reference, or whose reference cannot be mutated, give none).
        per_task: mutants per task (>= 1), spread over the operators (deterministic: no seed needed).

    Returns:
        Candidates ``TASK#mutantI`` of source :data:`MUTANT_SOURCE`, labelled ``mutation: OPERATOR`` and
        ``mutant: <description>`` (``fn line 4: `a < b` -> `a <= b` (ROR)``).

    Raises:
        ValueError: ``per_task`` below 1.
    """
    from evalgap.verifier.strength.mutants import MutationError, mutants_of

    if per_task < 1:
        raise ValueError(f"--mutants must be at least 1, got {per_task}")
    out: list[Candidate] = []
    for t in tasks:
        if not t.reference:
            continue
        try:
            ms = mutants_of(t.reference, t.entry_point, per_task)
        except MutationError:
            continue
        out += [Candidate(f"{t.task_id}#mutant{i}", t.task_id, MUTANT_SOURCE, m.source, i,
                          (("mutation", m.operator), ("mutant", m.description))) for i, m in enumerate(ms, 1)]
    return out


def split_mutants(results: list[CandidateResult]) -> tuple[list[CandidateResult], list[CandidateResult]]:
    """``(benchmark candidates, mutant candidates)`` of a run's results."""
    return ([r for r in results if r.source != MUTANT_SOURCE], [r for r in results if r.source == MUTANT_SOURCE])


def strength_table(mutants: list[CandidateResult]) -> dict[str, dict[str, Any]]:
    """Evaluator -> its strength on the mutant candidates (module docstring).

    Returns:
        ``{evaluator: {mutants, equivalent, scored, killed, unknown, rate, interval, tasks, survivors}}`` for
        every evaluator but the ground truth (``rate``/``interval`` None when nothing is scored; ``survivors``:
        up to 5 IDs of scored mutants it accepts). Empty without mutants.
    """
    distinct = [r for r in mutants if r.duplicate_of is None]
    if not distinct:
        return {}
    scored = [r for r in distinct if (v := r.verdict(_GT)) is not None and outcome(v.verdict) == "reject"]
    equivalent = sum(1 for r in distinct if (v := r.verdict(_GT)) is not None and outcome(v.verdict) == "accept")
    evs: list[str] = []
    for r in distinct:
        evs += [v.evaluator for v in r.verdicts if v.evaluator not in evs and v.evaluator != _GT]
    out: dict[str, dict[str, Any]] = {}
    for ev in evs:
        outs = [(r, outcome(v.verdict) if (v := r.verdict(ev)) is not None else None) for r in scored]
        killed = sum(o == "reject" for _, o in outs)
        iv = wilson(killed, len(scored))
        out[ev] = {"mutants": len(distinct), "equivalent": equivalent, "scored": len(scored), "killed": killed,
                   "unknown": sum(o == "unknown" for _, o in outs),
                   "rate": round(killed / len(scored), 4) if scored else None,
                   "interval": list(iv) if iv is not None else None,
                   "tasks": len({r.task_id for r in distinct}),
                   "survivors": [r.candidate_id for r, o in outs if o == "accept"][:5]}
    return out
