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


def select(ds: Dataset, n_right: int) -> Dataset:
    """The labelled-wrong runs plus ``n_right`` distinct labelled-right programs (random.Random(0))."""
    wrong, right = [], {}
    for c in ds.candidates:
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
    ap.add_argument("--publish", type=Path)
    ap.add_argument("--report-only", action="store_true", help="summarize the programs finished so far")
    a = ap.parse_args(argv)
    ds = select(build_dataset("llm-runs", a.data), a.right)
    settings = EvalSettings(crosshair_budget_s=a.budget, hypothesis_seeds=tuple(int(s) for s in a.seeds.split(",")),
                            hypothesis_examples=a.examples)
    opts = CompareOptions(tuple(a.evaluators.split(",")), settings, "local", a.jobs, report_only=a.report_only)
    t0 = time.time()
    s = run_compare(ds, a.out, opts, progress=lambda d, t: print(f"{d}/{t}", file=sys.stderr, flush=True))
    print(f"done in {time.time() - t0:.0f} s: gap {s.gap['count']} programs; recall "
          f"{ {e: r['recall'] for e, r in s.recall.items()} }")
    if a.publish:
        a.publish.mkdir(parents=True, exist_ok=True)
        rows = [json.loads(line) for line in (a.out / "candidates.jsonl").read_text().splitlines()]
        slim = [{"task_id": r["task_id"], "run": r["run"], "duplicate_of": r["duplicate_of"],
                 "verdicts": {v["evaluator"]: v["verdict"] for v in r["verdicts"]},
                 "cpu_s": {v["evaluator"]: v["cpu_s"] for v in r["verdicts"]}} for r in rows]
        summary = asdict(s)
        for frs in summary["false_refutations"].values():  # counterexamples are inputs, reasons may quote output
            for f in frs:
                f.pop("candidate_id", None)
        summary["gap"]["programs"] = [{"task_id": p["task_id"], "run": p["run"]} for p in summary["gap"]["programs"]]
        cmd = "python benchmarks/headline_humaneval.py " + " ".join(argv)
        head = [
            "# Headline run: gpt-3.5-turbo HumanEval runs, differential specs", "",
            f"Command (from the repository root, data in `../shared/data`): `{cmd}`", "",
            f"Evaluated: {s.programs} distinct programs ({s.candidates} runs) of {len(ds.candidates)} selected runs"
            + (" (PARTIAL: the run was stopped before every program finished; figures cover the finished ones)"
               if s.candidates < len(ds.candidates) else "") + ".",
            "Only task IDs, run numbers and verdicts are published: the llm-runs code has no licence.", "",
        ]
        from evalgap.research.summary import render_markdown

        (a.publish / "headline_humaneval.md").write_text("\n".join(head) + render_markdown(s, "Figures").replace(
            "# Figures", "## Figures", 1))
        (a.publish / "headline_humaneval.json").write_text(json.dumps({"summary": summary, "candidates": slim},
                                                                      indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
