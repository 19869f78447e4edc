"""Headline run: gpt-3.5-turbo HumanEval runs (shared/data/llm-runs), differential specs, evalgap's own verdicts.

Selection (deterministic): every run the dataset's recheck labels as passing HumanEval's tests but failing or
timing out on HumanEval+ (the labels only pick candidates; evalgap recomputes tests and ground truth itself),
plus N distinct programs labelled right, drawn with random.Random(0). Identical programs are evaluated once.

Usage (the command of the committed results; a heavy run, not part of the test suite):

    python benchmarks/headline_humaneval.py --data ../shared/data -o /tmp/headline -j 2 --budget 5 \
        --right 100 --seeds 0 --examples 100

Writes OUT/{candidates.jsonl, summary.json, summary.md, plots}; with --publish DIR it also writes
DIR/headline_humaneval.{md,json} holding only task IDs, run numbers and verdicts (the llm-runs code has no
licence and is never copied).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict
from pathlib import Path

from evalgap.research.compare import CompareOptions
from evalgap.research.dataset import Dataset
from evalgap.research.evaluators import EvalSettings
from evalgap.research.humaneval import build_dataset
from evalgap.research.run import run_compare
from evalgap.research.summary import Summary, summarize
from evalgap.research.verdicts import CandidateResult, EvalVerdict


def select(ds: Dataset, n_right: int, only_tasks: frozenset[str] = frozenset()) -> Dataset:
    """The labelled-wrong runs plus ``n_right`` distinct labelled-right programs (random.Random(0)); with
    ``only_tasks``, only the runs of those tasks (a side check, e.g. every right program of some tasks)."""
    wrong, right = [], {}
    for c in ds.candidates:
        if only_tasks and c.task_id not in only_tasks:
            continue
        lab = dict(c.labels)
        if lab.get("recheck_passed_humaneval_tests") != "True":
            continue
        if lab.get("recheck_humanevalplus") in ("fail", "timeout"):
            wrong.append(c)
        elif lab.get("recheck_humanevalplus") == "pass":
            right.setdefault((c.task_id, c.digest), c)
    keys = sorted(right)
    random.Random(0).shuffle(keys)
    chosen = [right[k] for k in keys[:n_right]]
    return Dataset("llm-runs-headline", ds.tasks, tuple(wrong + chosen), ds.origin)


def crosshair_cpu(results: list[CandidateResult]) -> list[CandidateResult]:
    """``results`` with each CrossHair verdict's ``cpu_s`` set to the CrossHair worker's own CPU seconds
    (``detail.crosshair_cpu_s``; the CPU limit, budget + 15 s, for a worker killed at it).

    The engine forks CrossHair workers from a server process, so the ``RUSAGE_CHILDREN`` delta the evaluator
    recorded (``cpu_s``) did not see them and read 0 in progress files written before ``evalgap compare``
    added the workers' own CPU seconds; newer results already carry them and are left as they are.
    """
    out = []
    for r in results:
        vs = []
        for v in r.verdicts:
            d = dict(v.detail)
            if v.evaluator.startswith("crosshair") and not v.cpu_s:
                used = d.get("crosshair_cpu_s")
                if used is None and "CPU limit" in v.reason:
                    used = float(d.get("budget_s", 0)) + 15
                v = EvalVerdict(v.evaluator, v.verdict, v.reason, round(float(used or 0.0), 3), v.wall_s,
                                v.counterexample, v.detail)
            vs.append(v)
        out.append(CandidateResult(r.candidate_id, r.task_id, r.source, r.run, r.digest, tuple(vs), r.duplicate_of))
    return out


def counting(full: Dataset, results: list[CandidateResult], s: Summary) -> list[str]:
    """How the distinct gap programs are counted (Markdown lines): exact text vs evalgap's normalisation,
    labelled ``fail`` vs ``fail``/``timeout``, and evalgap's own ground truth."""
    lab = [c for c in full.candidates if dict(c.labels).get("recheck_passed_humaneval_tests") == "True"
           and dict(c.labels).get("recheck_humanevalplus") in ("fail", "timeout")]
    fail = [c for c in lab if dict(c.labels)["recheck_humanevalplus"] == "fail"]
    gap = {(p["task_id"], p["run"]) for p in s.gap["programs"]}
    gap_digests = {r.digest for r in results if (r.task_id, r.run) in gap}
    exact_fail = {c.code: c for c in fail}
    in_gap = sum(1 for c in exact_fail.values() if c.digest in gap_digests)
    seen = {r.digest for r in results if r.verdict("ground-truth") is not None}
    agree = sum(1 for c in exact_fail.values() if c.digest in seen and c.digest not in gap_digests)
    later = len(exact_fail) - in_gap - agree
    return [
        f"* runs labelled as passing HumanEval's tests and failing (`fail`) or timing out (`timeout`) on "
        f"HumanEval+: {len(lab)} ({len(fail)} `fail`, {len(lab) - len(fail)} `timeout`);",
        f"* distinct by exact program text: {len({c.code for c in lab})} (`fail` only: **{len(exact_fail)}**, "
        "the issue's count of 43);",
        f"* distinct after evalgap's normalisation (trailing whitespace of each line and of the file removed, "
        f"`code_digest`): {len({c.digest for c in lab})} (`fail` only: {len({c.digest for c in fail})});",
        f"* of those, refuted by evalgap's own ground truth (HumanEval+ inputs vs the canonical solution): "
        f"**{s.gap['count']}** distinct programs, {s.gap['candidates']} runs (the evaluation gap below);",
        f"* of the issue's {len(exact_fail)} exact-text `fail` programs, {in_gap} are in evalgap's gap (as "
        f"{len({c.digest for c in exact_fail.values() if c.digest in gap_digests})} normalised programs); {agree} "
        "agree with the canonical solution on every HumanEval+ input here"
        + (f"; {later} not evaluated (partial run)." if later else "."),
    ]


def narrowings(ds: Dataset) -> list[str]:
    """The input-domain narrowings of the differential specs of the selected tasks (Markdown lines, one per
    task that has any; :func:`evalgap.research.diffspec.domain_narrowings`): assumptions of every verdict."""
    from evalgap.research.diffspec import domain_narrowings

    used = {c.task_id for c in ds.candidates}
    out = []
    for t in ds.tasks:
        if t.task_id in used and (items := domain_narrowings(t)):
            out.append(f"* {t.task_id}: " + "; ".join(items))
    return out


def exact_text_counts(full: Dataset, results: list[CandidateResult], evaluator: str) -> dict[str, int]:
    """``evaluator``'s verdicts over the issue's counting: the runs labelled as passing HumanEval's tests and
    ``fail`` on HumanEval+, distinct by exact program text (43 for gpt-3.5-turbo). Each program takes the verdict
    of its normalised digest; ``not-run`` counts the programs without a finished result.

    Returns:
        ``{verdict value or "not-run": number of exact-text programs}`` plus ``"programs"`` (the total).
    """
    fail = {c.code: c for c in full.candidates if dict(c.labels).get("recheck_passed_humaneval_tests") == "True"
            and dict(c.labels).get("recheck_humanevalplus") == "fail"}
    by_digest = {r.digest: r for r in results}
    out: dict[str, int] = {"programs": len(fail)}
    for c in fail.values():
        r = by_digest.get(c.digest)
        v = r.verdict(evaluator) if r is not None else None
        key = v.verdict.value if v is not None else "not-run"
        out[key] = out.get(key, 0) + 1
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("-o", "--out", type=Path, default=Path("/tmp/evalgap-headline"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--budget", type=float, default=20.0)
    ap.add_argument("--right", type=int, default=100)
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--evaluators", default="tests,ground-truth,crosshair,hypothesis")
    ap.add_argument("--specs", type=Path, help="folder of property specs (HumanEval_N.req) for the crosshair-prop "
                    "and spec-inputs evaluators, e.g. specs/humaneval/properties")
    ap.add_argument("--only-tasks", default="", help="comma-separated task IDs: select only their runs (a side "
                    "check, not the headline selection)")
    ap.add_argument("--publish", type=Path)
    ap.add_argument("--publish-stem", default="headline_humaneval", help="file name stem of the published "
                    "report (e.g. headline_property_specs_run for a --specs run)")
    ap.add_argument("--report-only", action="store_true", help="summarize the programs finished so far")
    ap.add_argument("--exact-text", metavar="EVALUATOR", action="append", default=[],
                    help="also print EVALUATOR's verdicts over the issue's exact-text `fail` programs (repeatable)")
    ap.add_argument("--notes", type=Path, help="Markdown inserted into the published report after its header "
                    "(the inspection of the false refutations, comparisons)")
    a = ap.parse_args(argv)
    full = build_dataset("llm-runs", a.data, specs_dir=a.specs)
    ds = select(full, a.right, frozenset(t for t in a.only_tasks.split(",") if t))
    settings = EvalSettings(crosshair_budget_s=a.budget, hypothesis_seeds=tuple(int(s) for s in a.seeds.split(",")),
                            hypothesis_examples=a.examples)
    opts = CompareOptions(tuple(a.evaluators.split(",")), settings, "local", a.jobs, report_only=a.report_only)
    t0 = time.time()
    s = run_compare(ds, a.out, opts, progress=lambda d, t: print(f"{d}/{t}", file=sys.stderr, flush=True))
    print(f"done in {time.time() - t0:.0f} s: gap {s.gap['count']} programs; recall "
          f"{ {e: r['recall'] for e, r in s.recall.items()} }")
    if a.exact_text:
        done = [CandidateResult.from_json(json.loads(line))
                for line in (a.out / "candidates.jsonl").read_text().splitlines()]
        for e in a.exact_text:
            print(f"{e} over the exact-text `fail` programs: {exact_text_counts(full, done, e)}")
    if a.publish:
        a.publish.mkdir(parents=True, exist_ok=True)
        rows = [json.loads(line) for line in (a.out / "candidates.jsonl").read_text().splitlines()]
        results = crosshair_cpu([CandidateResult.from_json(r) for r in rows])
        s = summarize(results)
        rows = [r.to_json() for r in results]
        slim = [{"task_id": r["task_id"], "run": r["run"], "duplicate_of": r["duplicate_of"],
                 "verdicts": {v["evaluator"]: v["verdict"] for v in r["verdicts"]},
                 "cpu_s": {v["evaluator"]: v["cpu_s"] for v in r["verdicts"]}} for r in rows]
        summary = asdict(s)
        for frs in summary["false_refutations"].values():  # counterexamples are inputs, reasons may quote output
            for f in frs:
                f.pop("candidate_id", None)
        summary["gap"]["programs"] = [{"task_id": p["task_id"], "run": p["run"]} for p in summary["gap"]["programs"]]
        gap = {(p["task_id"], p["run"]) for p in s.gap["programs"]}
        ch = [v for r in results if (r.task_id, r.run) in gap and (v := r.verdict("crosshair")) is not None
              and v.verdict.value == "refuted"]
        ch_line = ""
        if ch:
            cpu_s = sorted(v.cpu_s for v in ch)
            wall = sorted(v.wall_s for v in ch)
            ch_line = (f"CrossHair on the gap programs it refutes ({len(ch)}): median {cpu_s[len(ch) // 2]:.2f} CPU s "
                       f"of CrossHair analysis (max {cpu_s[-1]:.2f}), median {wall[len(ch) // 2]:.1f} s wall-clock "
                       "for the whole evaluator (worker start, analysis, concrete replay) on the shared machine.")
        cmd = "python benchmarks/headline_humaneval.py " + " ".join(argv)
        head = [
            "# Headline run: gpt-3.5-turbo HumanEval runs, "
            + (f"property specs (`{a.specs}`)" if a.specs else "differential specs"), "",
            f"Command (from the repository root, data in `../shared/data`): `{cmd}`", "",
            f"Evaluated: {s.programs} distinct programs ({s.candidates} runs) of {len(ds.candidates)} selected runs"
            + (" (PARTIAL: the run was stopped before every program finished; figures cover the finished ones)"
               if s.candidates < len(ds.candidates) else "") + ".",
            "Only task IDs, run numbers and verdicts are published: the llm-runs code has no licence.", "",
            "## Counting the distinct gap programs", "", *counting(full, results, s), "", ch_line, "", "",
        ]
        tail = ["", "## Input domain of the differential specs, per task", "",
                "Assumptions of every differential verdict (CrossHair and Hypothesis) on the selected tasks: "
                "parameter types inferred from HumanEval+'s inputs where the prompt's annotation is a bare "
                "`list`, `Any`, `List[Any]` or missing, and the floats assumption (`FINITE_<param>`; "
                "`research/diffspec.py`, `domain_narrowings`).", "", *narrowings(ds), ""] if not a.specs else []
        if a.notes:
            head += [a.notes.read_text(encoding="utf-8").rstrip(), ""]
        from evalgap.research.summary import render_markdown

        (a.publish / f"{a.publish_stem}.md").write_text("\n".join(head) + render_markdown(s, "Figures").replace(
            "# Figures", "## Figures", 1) + "\n".join(tail))
        (a.publish / f"{a.publish_stem}.json").write_text(json.dumps({"summary": summary, "candidates": slim},
                                                                      indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
