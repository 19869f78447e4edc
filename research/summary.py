"""The figures of ``evalgap compare``, computed from per-candidate results (rendering is in :func:`render_markdown`).

Definitions (as in EvalPlus, Liu et al. 2023, and nl2postcond, Endres et al. 2024):

* **accept rate** of an evaluator: candidates it accepts (``verified``/``no-counterexample``) / all candidates;
* **evaluation gap**: distinct programs accepted by the benchmark's tests but rejected by the ground truth;
* **recall** of an evaluator: the share of the gap it rejects (``refuted``); its ``unknown``s are counted apart;
* **false refutation**: the evaluator rejects a program the ground truth accepts (listed for inspection);
* **pass-rate drop**: ``1 - accept(ground truth) / accept(tests)`` over all candidates (EvalPlus reports
  pass@k drops of up to about 20-29 % with its extended tests);
* **agreement** of two evaluators: the share of distinct programs on which their outcomes (accept / reject /
  unknown) are equal;
* **CPU seconds** per program per evaluator, split by the evaluator's outcome (accept / reject / unknown).

Counts over *distinct programs* evaluate each (task, code digest) once; counts over *candidates* weigh every run.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Mapping

from evalgap.research.domains import InputDomain, outside
from evalgap.research.stats import wilson
from evalgap.research.verdicts import CandidateResult, outcome

__all__ = ["Summary", "summarize", "render_markdown", "ORACLE_EVALUATORS"]

GT = "ground-truth"
#: evaluators that read the oracle's inputs (HumanEval+ ``plus_input``, which define the gap programs): reported
#: apart, never as a recall figure comparable with the others'
ORACLE_EVALUATORS = frozenset({GT, "spec-inputs"})


@dataclass(frozen=True)
class Summary:
    """All figures of one compare run (JSON-ready: plain dicts and lists).

    Attributes:
        evaluators: evaluator names, in order.
        candidates: number of candidates; ``programs``: distinct programs.
        accept: evaluator -> {accept, reject, unknown, rate} over candidates.
        gap: distinct programs accepted by tests and rejected by the ground truth:
            {count, candidates, task_ids: [...], programs: [{candidate_id, task_id, run}]}.
        recall: evaluator -> {rejected, outside_domain, unknown, accepted, recall} on the gap programs:
            ``rejected`` counts refutations whose counterexample is inside its task's domain (or cannot be
            read), ``outside_domain`` the others (they do not count for recall).
        right_programs: distinct programs the ground truth accepts (and tests accept).
        false_refutations: evaluator -> list of {candidate_id, task_id, run, reason, counterexample}.
        cpu: evaluator -> {outcome -> {n, mean_s, median_s, total_s}} over distinct programs.
        agreement: evaluator -> evaluator -> share of programs with equal outcomes.
        pass_rate_drop: 1 - accept(ground truth) / accept(tests) over candidates (None without both).
        settings: the evaluators' settings (budgets, seeds) as recorded in the verdicts.
        false_refutation_rate: evaluator -> {rejected, outside_domain, right, rate, interval} over the right
            programs (``rejected``/``rate``: inside the domain only).
        domains: task ID -> the input domain its refutations were judged against (``describe()`` text).
        pass_at_1: source (model) -> evaluator -> {accept, n, rate, interval} over that source's candidates:
            the EvalPlus-style pass@1 drop from the tests to the ground truth and to each formal evaluator.
        strength: evaluator -> its spec strength on mutants of the references ({mutants, equivalent, scored,
            killed, unknown, rate, interval, tasks, survivors}; :func:`evalgap.research.strength.strength_table`;
            empty when the run had no ``--mutants``).

    Every ``interval`` is the 95 % Wilson score interval ``[low, high]`` of the rate beside it (None for n = 0).
    """

    evaluators: list[str]
    candidates: int
    programs: int
    accept: dict[str, dict[str, Any]]
    gap: dict[str, Any]
    recall: dict[str, dict[str, Any]]
    right_programs: int
    false_refutations: dict[str, list[dict[str, Any]]]
    cpu: dict[str, dict[str, dict[str, float]]]
    agreement: dict[str, dict[str, float]]
    pass_rate_drop: float | None
    settings: dict[str, Any]
    false_refutation_rate: dict[str, dict[str, Any]] = field(default_factory=dict)
    pass_at_1: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)
    strength: dict[str, dict[str, Any]] = field(default_factory=dict)


def _o(r: CandidateResult, ev: str) -> str | None:
    v = r.verdict(ev)
    return outcome(v.verdict) if v is not None else None


def summarize(results: list[CandidateResult], domains: Mapping[str, InputDomain] | None = None) -> Summary:
    """Compute the :class:`Summary` of ``results`` (see the module docstring for the definitions).

    Args:
        results: per-candidate verdicts.
        domains: task ID -> its input domain (:mod:`evalgap.research.domains`, from the visible inputs); a
            refutation whose counterexample lies outside its task's domain counts neither for recall nor as a
            false refutation, and is counted apart (``outside_domain``). None: every refutation counts.
    """
    def out_of_domain(r: CandidateResult, ev: str) -> str | None:
        v = r.verdict(ev)
        if domains is None or ev in (GT, "tests") or v is None or r.task_id not in domains:
            return None
        return outside(domains[r.task_id], v.counterexample)

    evs: list[str] = []
    for r in results:
        for v in r.verdicts:
            if v.evaluator not in evs:
                evs.append(v.evaluator)
    distinct = [r for r in results if r.duplicate_of is None]
    accept: dict[str, dict[str, Any]] = {}
    for ev in evs:
        outs = [_o(r, ev) for r in results]
        n = sum(o is not None for o in outs)
        accept[ev] = {"accept": outs.count("accept"), "reject": outs.count("reject"),
                      "unknown": outs.count("unknown"), "rate": round(outs.count("accept") / n, 4) if n else None,
                      "interval": _interval(outs.count("accept"), n)}
    gap_progs = [r for r in distinct if _o(r, "tests") == "accept" and _o(r, GT) == "reject"]
    gap_keys = {(r.task_id, r.digest) for r in gap_progs}
    gap_cands = sum((r.task_id, r.digest) in gap_keys for r in results)
    right = [r for r in distinct if _o(r, GT) == "accept"]
    recall, false_ref, cpu = {}, {}, {}
    for ev in evs:
        outs = [_o(r, ev) for r in gap_progs]
        apart = sum(1 for r, o in zip(gap_progs, outs) if o == "reject" and out_of_domain(r, ev))
        rec = outs.count("reject") - apart
        recall[ev] = {"rejected": rec, "outside_domain": apart, "unknown": outs.count("unknown"),
                      "accepted": outs.count("accept"),
                      "recall": round(rec / len(gap_progs), 4) if gap_progs else None,
                      "interval": _interval(rec, len(gap_progs))}
        fr = []
        for r in right:
            fv = r.verdict(ev)
            if fv is not None and outcome(fv.verdict) == "reject":
                fr.append({"candidate_id": r.candidate_id, "task_id": r.task_id, "run": r.run,
                           "reason": fv.reason, "counterexample": fv.counterexample,
                           "outside_domain": out_of_domain(r, ev)})
        false_ref[ev] = fr
        by: dict[str, list[float]] = {}
        for r in distinct:
            cv = r.verdict(ev)
            if cv is not None:
                by.setdefault(outcome(cv.verdict), []).append(cv.cpu_s)
        cpu[ev] = {k: {"n": len(xs), "mean_s": round(statistics.fmean(xs), 3),
                       "median_s": round(statistics.median(xs), 3), "total_s": round(sum(xs), 2)}
                   for k, xs in sorted(by.items())}
    agreement: dict[str, dict[str, float]] = {}
    for a in evs:
        agreement[a] = {}
        for b in evs:
            pairs = [(_o(r, a), _o(r, b)) for r in distinct if _o(r, a) is not None and _o(r, b) is not None]
            agreement[a][b] = round(sum(x == y for x, y in pairs) / len(pairs), 4) if pairs else 0.0
    t, g = accept.get("tests", {}).get("accept"), accept.get(GT, {}).get("accept")
    drop = round(1 - g / t, 4) if t and g is not None else None
    settings: dict[str, Any] = {}
    for r in distinct:
        for v in r.verdicts:
            for k, val in v.detail:
                if k in ("budget_s", "seeds", "max_examples", "constant_mining", "hypothesis_version", "atol"):
                    settings.setdefault(v.evaluator, {}).setdefault(k, val)
    gap = {"count": len(gap_progs), "candidates": gap_cands, "task_ids": sorted({r.task_id for r in gap_progs}),
           "programs": [{"candidate_id": r.candidate_id, "task_id": r.task_id, "run": r.run} for r in gap_progs]}
    fr_rate = {}
    for ev, frs in false_ref.items():
        inside = sum(1 for f in frs if not f["outside_domain"])
        fr_rate[ev] = {"rejected": inside, "outside_domain": len(frs) - inside, "right": len(right),
                       "rate": round(inside / len(right), 4) if right else None,
                       "interval": _interval(inside, len(right))}
    return Summary(evs, len(results), len(distinct), accept, gap, recall, len(right), false_ref, cpu, agreement,
                   drop, settings, fr_rate, _pass_at_1(results, evs),
                   {t: d.describe() for t, d in sorted((domains or {}).items()) if t in {r.task_id for r in results}})


def _interval(k: int, n: int) -> list[float] | None:
    iv = wilson(k, n)
    return list(iv) if iv is not None else None


def _pass_at_1(results: list[CandidateResult], evs: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per source, the share of its candidates each evaluator accepts (pass@1 with one sample per run)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for src in sorted({r.source for r in results}):
        mine = [r for r in results if r.source == src]
        row: dict[str, dict[str, Any]] = {}
        for ev in evs:
            outs = [_o(r, ev) for r in mine]
            n = sum(o is not None for o in outs)
            k = outs.count("accept")
            row[ev] = {"accept": k, "n": n, "rate": round(k / n, 4) if n else None, "interval": _interval(k, n)}
        out[src] = row
    return out


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def _ci(iv: list[float] | None) -> str:
    return "n/a" if iv is None else f"[{100 * iv[0]:.1f}, {100 * iv[1]:.1f}]"


def _strength_cell(t: dict[str, Any] | None) -> str:
    return "-" if not t else f"{t['killed']}/{t['scored']} ({_pct(t['rate'])})"


def render_markdown(s: Summary, title: str = "evalgap compare") -> str:
    """The summary as a Markdown report (tables of every figure, false refutations listed)."""
    ln = [f"# {title}", "", f"{s.candidates} candidates, {s.programs} distinct programs; "
          f"{s.right_programs} distinct programs right by the ground truth.", ""]
    ln += ["Every rate is given with its 95 % Wilson score interval (in percent).", ""]
    ln += ["## Accept rate per evaluator (all candidates)", "",
           "| evaluator | accept | reject | unknown | rate | 95 % interval |", "|---|---|---|---|---|---|"]
    ln += [f"| {e} | {a['accept']} | {a['reject']} | {a['unknown']} | {_pct(a['rate'])} | {_ci(a.get('interval'))} |"
           for e, a in s.accept.items()]
    ln += ["", f"Pass-rate drop from the benchmark's tests to the ground truth: {_pct(s.pass_rate_drop)} "
           "(EvalPlus reports pass@k drops of up to about 20-29 % with its extended tests).", ""]
    ln += ["## Evaluation gap", "", f"**{s.gap['count']} distinct programs** ({s.gap['candidates']} candidates) pass "
           "the benchmark's tests but are wrong by the ground truth.", "",
           "| evaluator | rejects (recall) | 95 % interval | outside the domain | unknown | accepts | spec strength |",
           "|---|---|---|---|---|---|---|"]
    ln += [f"| {e}{' (oracle inputs)' if e in ORACLE_EVALUATORS else ''} | {r['rejected']} ({_pct(r['recall'])}) | "
           f"{_ci(r.get('interval'))} | {r.get('outside_domain', 0)} | {r['unknown']} | {r['accepted']} | "
           f"{_strength_cell(s.strength.get(e))} |"
           for e, r in s.recall.items()]
    if any(e in ORACLE_EVALUATORS for e in s.recall):
        ln += ["", "Evaluators marked *(oracle inputs)* run on the ground truth's own inputs (HumanEval+'s plus "
               "inputs define the gap): their recall is not comparable with the others'."]
    if s.gap["programs"]:
        ln += ["", "Gap programs: " + ", ".join(f"`{p['candidate_id']}`" for p in s.gap["programs"]) + "."]
    if s.pass_at_1:
        ln += ["", "## pass@1 under each evaluator, per source", "",
               "| source | " + " | ".join(s.evaluators) + " |", "|---" * (len(s.evaluators) + 1) + "|"]
        for src, row in s.pass_at_1.items():
            ln.append(f"| {src} | " + " | ".join(
                f"{_pct(row[e]['rate'])} {_ci(row[e]['interval'])}" if e in row else "n/a" for e in s.evaluators)
                + " |")
    if s.strength:
        first = next(iter(s.strength.values()))
        ln += ["", "## Spec strength (mutation analysis of the references)", "",
               f"{first['mutants']} distinct mutants of the references of {first['tasks']} tasks; "
               f"{first['equivalent']} agree with the reference on every ground-truth input (likely equivalent, "
               f"left out); strength = killed / the {first['scored']} others (nl2postcond's *completeness*, "
               "Endres et al. 2024, over mechanical mutants).", "",
               "| evaluator | killed | scored | strength | 95 % interval | unknown | a surviving mutant |",
               "|---|---|---|---|---|---|---|"]
        ln += [f"| {e} | {t['killed']} | {t['scored']} | {_pct(t['rate'])} | {_ci(t['interval'])} | {t['unknown']} | "
               f"{t['survivors'][0] if t['survivors'] else '-'} |" for e, t in s.strength.items()]
    ln += ["", "## False refutations (rejected, but right by the ground truth)", ""]
    for e, frs in s.false_refutations.items():
        if e == "ground-truth":
            continue
        fr = s.false_refutation_rate.get(e, {})
        ln.append(f"* **{e}**: {fr.get('rejected', len(frs))} of {s.right_programs}"
                  + (f" ({_pct(fr.get('rate'))}, 95 % interval {_ci(fr.get('interval'))})" if fr else "")
                  + (f"; {fr['outside_domain']} more outside the benchmark's domain (not counted)"
                     if fr.get("outside_domain") else ""))
        ln += [f"  * {f['candidate_id']}: {f['reason'][:200]}" + (f" — `{f['counterexample'][:160]}`"
               if f.get("counterexample") else "")
               + (f" *(outside the benchmark's domain: {f['outside_domain']})*" if f.get("outside_domain") else "")
               for f in frs]
    ln += ["", "## CPU seconds per distinct program", "", "| evaluator | outcome | n | mean s | median s | total s |",
           "|---|---|---|---|---|---|"]
    for e, by in s.cpu.items():
        ln += [f"| {e} | {k} | {c['n']} | {c['mean_s']:.2f} | {c['median_s']:.2f} | {c['total_s']:.1f} |"
               for k, c in by.items()]
    ln += ["", "## Agreement matrix (share of distinct programs with equal outcomes)", "",
           "| | " + " | ".join(s.evaluators) + " |", "|---" * (len(s.evaluators) + 1) + "|"]
    ln += [f"| {a} | " + " | ".join(f"{s.agreement[a][b]:.2f}" for b in s.evaluators) + " |" for a in s.evaluators]
    ln += ["", "## Settings", "", "```", *(f"{e}: {v}" for e, v in s.settings.items()), "```", ""]
    return "\n".join(ln)
