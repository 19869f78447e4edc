"""Spec strength of the HumanEval property specs, by mutation analysis of the reference solutions.

For each sampled task of one part of the committed development / evaluation split (``research/splits``) that
has a property spec in ``specs/humaneval/properties``, the spec is checked against HumanEval+'s canonical
solution with ``Settings(strength=True)``: every passing requirement is run on mutants of the entry point
(:mod:`evalgap.verifier.strength`), and its strength (killed / scored mutants) is reported, with the share of
requirements flagged ``weak`` (strength < 0.5).

Usage: ``python benchmarks/spec_strength.py [--data DIR] [--part dev|eval] [--sample N] [--seed S]
[--budget S] [--mutants N] [--json FILE]``. Prints one line per task and a summary; exit 2 when the data is
missing. CPU: about 1-3 s per mutant per requirement.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import evalgap
from evalgap.research.humaneval import load_tasks
from evalgap.research.splits import frozen_split
from evalgap.research.stats import wilson

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
SPECS = ROOT / "specs" / "humaneval" / "properties"


def run_task(task: Any, budget: float, mutants: int) -> dict[str, Any]:
    """Check the task's property spec on its reference with strength on; the per-requirement figures."""
    with tempfile.TemporaryDirectory(prefix="evalgap-strength-") as tmp:
        ref = Path(tmp) / "eg_ref.py"
        ref.write_text(task.reference + "\n\n" + task.spec_helpers + "\n", encoding="utf-8")
        spec = Path(tmp) / "spec.req"
        spec.write_text(task.spec_text, encoding="utf-8")
        settings = evalgap.Settings(budget_s=budget, strength=True, strength_mutants=mutants, cache=False,
                                    analysis=False, hypothesis_examples=100)
        t0 = time.monotonic()
        report = evalgap.check(spec, ref, settings=settings)
        rows = []
        for r in report.requirements:
            st = r.strength
            rows.append({"id": r.id, "verdict": r.verdict.value if r.verdict else r.role,
                         "mutants": st.mutants if st else None, "killed": st.killed if st else None,
                         "scored": st.scored if st else None, "ratio": st.ratio if st else None,
                         "weak": bool(st and st.weak), "survivor": st.survivors[0] if st and st.survivors else None})
        return {"task_id": task.task_id, "elapsed_s": round(time.monotonic() - t0, 1), "requirements": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--part", choices=("dev", "eval"), default="dev")
    ap.add_argument("--sample", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--mutants", type=int, default=8)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if not (a.data / "humaneval").is_dir():
        print(f"no HumanEval data in {a.data} (pass --data)", file=sys.stderr)
        return 2
    ids = [t for t in frozen_split("humaneval")[a.part] if (SPECS / f"{t.replace('/', '_')}.req").is_file()]
    ids = sorted(random.Random(a.seed).sample(ids, min(a.sample, len(ids))), key=lambda t: int(t.split("/")[1]))
    tasks = load_tasks(a.data, ids, SPECS)
    out = []
    for tid in ids:
        res = run_task(tasks[tid], a.budget, a.mutants)
        out.append(res)
        shown = ", ".join(f"{q['id']} {q['killed']}/{q['scored']}" + (" weak" if q["weak"] else "")
                          for q in res["requirements"] if q["scored"] is not None)
        print(f"{tid}: {shown or 'no passing requirement'}  [{res['elapsed_s']} s]", flush=True)
    reqs = [q for r in out for q in r["requirements"] if q["ratio"] is not None]
    weak = sum(q["weak"] for q in reqs)
    iv = wilson(weak, len(reqs))
    print(f"\n{a.part} part, {len(out)} tasks (seed {a.seed}), {len(reqs)} requirements with a strength figure")
    if reqs:
        print(f"mean strength {statistics.fmean(q['ratio'] for q in reqs):.3f}, median "
              f"{statistics.median(q['ratio'] for q in reqs):.3f}; weak {weak} of {len(reqs)} "
              f"({100 * weak / len(reqs):.1f} %, 95 % interval {100 * iv[0]:.1f}-{100 * iv[1]:.1f} %)" if iv else "")
    if a.json:
        a.json.write_text(json.dumps({"part": a.part, "seed": a.seed, "budget_s": a.budget, "mutants": a.mutants,
                                      "tasks": out}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
