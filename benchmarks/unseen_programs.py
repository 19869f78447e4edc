"""Recall on programs the specs were never revised against: nl2postcond's GPT-3.5 HumanEval programs.

The property specs (``specs/humaneval/properties``) were written and revised against the gpt-3.5-turbo runs of
``llm-runs`` (all tasks, before the split existed); the data holds no runs of other models. nl2postcond's
``merged_codes_preprocessed`` programs (another generation run, 200 "natural" programs per task, Endres et al.
2024) were never looked at while revising, so they are the unseen programs available here (the same model
family, not another model).

Two stages, both resumable ``evalgap compare`` runs:

1. **screen**: a seeded sample of ``--screen`` natural programs of the ``--part`` tasks with the ``tests``
   evaluator (and the ground truth, always run): which programs are in the evaluation gap (tests pass, ground
   truth rejects) and which are right;
2. **measure**: every gap program found and ``--right`` right programs (seeded) with every evaluator of
   ``--evaluators`` and ``--mutants`` reference mutants per task (spec strength); published as ``STEM.md``,
   ``STEM.json`` and ``STEM_rates.csv`` like an ``evalgap tables`` run.

Usage: ``python benchmarks/unseen_programs.py --data ../shared/data --runs DIR [--part eval] [--screen 400]
[--right 25] [--seed 0] [--budget 2] [--mutants 2] [--union A,B] [--screened-only] [--publish docs/results --stem
unseen_nl2postcond_eval]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict
from pathlib import Path

from evalgap.research.compare import CompareOptions
from evalgap.research.dataset import Dataset
from evalgap.research.evaluators import EvalSettings
from evalgap.research.run import resolve_dataset, run_compare
from evalgap.research.strength import mutant_candidates
from evalgap.research.verdicts import outcome
from evalgap.verifier.findings import Verdict

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--runs", type=Path, required=True)
    ap.add_argument("--part", choices=("dev", "eval"), default="eval")
    ap.add_argument("--screen", type=int, default=400)
    ap.add_argument("--right", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--mutants", type=int, default=2)
    ap.add_argument("--evaluators", default="tests,ground-truth,crosshair,crosshair-prop,hypothesis")
    ap.add_argument("--screened-only", action="store_true", help="use the programs the screen has finished so far "
                    "(run no more of it; the report says how many were screened)")
    ap.add_argument("--union", action="append", default=[], help="also report this union (A,B; repeatable)")
    ap.add_argument("--publish", type=Path)
    ap.add_argument("--stem", default="unseen_nl2postcond_eval")
    a = ap.parse_args(argv)
    if not (a.data / "nl2postcond").is_dir():
        print(f"no nl2postcond data in {a.data} (pass --data)", file=sys.stderr)
        return 2
    specs = ROOT / "specs" / "humaneval" / "properties"
    where = [("nl2postcond", "natural")]
    # the screen is `evalgap compare nl2postcond-mutants:DATA --part P --where nl2postcond=natural --sample N
    # --seed S --evaluators tests -o RUNS/STEM-screen` (compare's default settings: the same cache keys)
    plain = resolve_dataset(f"nl2postcond-mutants:{a.data}", sample=a.screen, seed=a.seed, part=a.part, where=where)
    screen = run_compare(plain, a.runs / f"{a.stem}-screen",
                         CompareOptions(("tests",), EvalSettings(), report_only=a.screened_only), plots=False)
    ds = resolve_dataset(f"nl2postcond-mutants:{a.data}", specs=specs, sample=a.screen, seed=a.seed, part=a.part,
                         where=where)
    rows = [json.loads(ln) for ln in (a.runs / f"{a.stem}-screen" / "candidates.jsonl").read_text(
        encoding="utf-8").splitlines() if ln.strip()]

    def out(r: dict[str, object], ev: str) -> str | None:
        for v in r["verdicts"]:  # type: ignore[attr-defined]
            if v["evaluator"] == ev:
                return outcome(Verdict(v["verdict"]))
        return None

    first = [r for r in rows if not r.get("duplicate_of")]
    gap = sorted(str(r["candidate_id"]) for r in first if out(r, "tests") == "accept" and out(r, "ground-truth") == "reject")
    right = sorted(str(r["candidate_id"]) for r in first if out(r, "tests") == "accept" and out(r, "ground-truth") == "accept")
    right = sorted(random.Random(a.seed).sample(right, min(a.right, len(right))))
    keep = set(gap) | set(right)
    cands = [c for c in ds.candidates if c.candidate_id in keep]
    used = {c.task_id for c in cands}
    if a.mutants > 0:
        cands += mutant_candidates([t for t in ds.tasks if t.task_id in used], a.mutants)
    print(f"screened {screen.programs} programs: {len(gap)} gap, {len(right)} right kept", flush=True)
    names = tuple(e.strip() for e in a.evaluators.split(",") if e.strip())
    settings = EvalSettings(crosshair_budget_s=a.budget, hypothesis_seeds=(0,), hypothesis_examples=50)
    s = run_compare(Dataset(ds.name + " (unseen: screened gap and right programs)", ds.tasks, tuple(cands), ds.origin),
                    a.runs / a.stem, CompareOptions(names, settings, unions=tuple(
                        tuple(e.strip() for e in u.split(",") if e.strip()) for u in a.union)), plots=False,
                    progress=lambda d, t: print(f"{d}/{t}", flush=True))
    cmd = " ".join(["python benchmarks/unseen_programs.py", *(argv if argv is not None else sys.argv[1:])])
    if a.publish:
        a.publish.mkdir(parents=True, exist_ok=True)
        md = (a.runs / a.stem / "summary.md").read_text(encoding="utf-8")
        head, _, rest = md.partition("\n")
        (a.publish / f"{a.stem}.md").write_text(
            f"{head}\n\nCommand: `{cmd}`. Screened: a seeded sample of {a.screen} natural nl2postcond programs of the "
            f"{a.part}-part tasks ({screen.programs} distinct programs screened"
            f"{' so far: the screen was stopped early' if a.screened_only else ''}), tests and ground truth; "
            f"measured: the {len(gap)} gap "
            f"programs found and {len(right)} right ones (seed {a.seed}), plus {a.mutants} reference mutants per "
            f"task; evaluators {a.evaluators}.\n"
            + rest, encoding="utf-8")
        (a.publish / f"{a.stem}.json").write_text(json.dumps(asdict(s) | {"command": cmd, "run": a.stem}, indent=1,
                                                             sort_keys=True), encoding="utf-8")
        (a.publish / f"{a.stem}_rates.csv").write_text((a.runs / a.stem / "rates.csv").read_text(encoding="utf-8"),
                                                       encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
