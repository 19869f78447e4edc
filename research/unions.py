"""Unions of evaluators: a program is rejected when any of them rejects it (``compare --union A,B``).

A gate that runs several evaluators rejects a program when one of them does; its recall is not the largest of
the members' but that of the union. :func:`with_unions` adds one verdict per union to every result, named
``A|B``, before the summary is computed, so the union gets every row a single evaluator gets (recall, false
refutations, CPU, pass@1, agreement):

* ``refuted`` when a member refuted the program with a counterexample inside the task's input domain (or one
  that cannot be read); that member's reason and counterexample are kept, the first member listed first;
* else ``refuted`` with the first outside-domain counterexample, when every refutation lies outside (the summary
  then counts it apart, as for a single evaluator);
* else ``unknown`` when a member's verdict is unknown or missing, else ``no-counterexample``.

CPU and wall seconds are the members' sums (they run one after another).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from evalgap.research.domains import InputDomain, outside
from evalgap.research.verdicts import CandidateResult, EvalVerdict, outcome
from evalgap.verifier.findings import Verdict

__all__ = ["with_unions", "union_name"]


def union_name(members: Sequence[str]) -> str:
    """The evaluator name of a union: ``crosshair|mutation``."""
    return "|".join(members)


def _union(r: CandidateResult, members: Sequence[str], domain: InputDomain | None) -> EvalVerdict:
    got = [r.verdict(m) for m in members]
    cpu = round(sum(v.cpu_s for v in got if v is not None), 3)
    wall = round(sum(v.wall_s for v in got if v is not None), 3)
    name = union_name(members)
    rejects = [(m, v) for m, v in zip(members, got) if v is not None and outcome(v.verdict) == "reject"]
    inside = [(m, v) for m, v in rejects if domain is None or not outside(domain, v.counterexample)]
    for m, v in inside or rejects:
        return EvalVerdict(name, Verdict.REFUTED, f"{m}: {v.reason}", cpu, wall, v.counterexample)
    if any(v is None or outcome(v.verdict) == "unknown" for v in got):
        missing = [m for m, v in zip(members, got) if v is None or outcome(v.verdict) == "unknown"]
        return EvalVerdict(name, Verdict.UNKNOWN, f"unknown by {', '.join(missing)}", cpu, wall)
    return EvalVerdict(name, Verdict.NO_COUNTEREXAMPLE, f"accepted by {', '.join(members)}", cpu, wall)


def with_unions(results: Sequence[CandidateResult], unions: Sequence[Sequence[str]],
                domains: Mapping[str, InputDomain] | None = None) -> list[CandidateResult]:
    """``results`` with one more verdict per union (see the module docstring).

    Args:
        results: per-candidate verdicts.
        unions: each a list of at least two evaluator names.
        domains: task ID -> input domain (as for :func:`evalgap.research.summary.summarize`).

    Raises:
        ValueError: a union has fewer than two members, or names an evaluator no result has.
    """
    known = {v.evaluator for r in results for v in r.verdicts}
    for members in unions:
        if len(members) < 2:
            raise ValueError(f"--union {union_name(members)}: a union needs at least two evaluators")
        unknown = [m for m in members if m not in known]
        if unknown and results:
            raise ValueError(f"--union {union_name(members)}: not among the evaluators run: {', '.join(unknown)}")
    return [replace(r, verdicts=r.verdicts + tuple(
        _union(r, members, (domains or {}).get(r.task_id)) for members in unions)) for r in results]
