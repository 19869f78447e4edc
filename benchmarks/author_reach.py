"""Reach of `evalgap author`'s pattern engine on the 164 HumanEval prompts.

For each prompt (its docstring is the prose): how many sentences become formal clauses (not counting the
examples, which become `example` requirements, nor clauses the signature alone implies), how many of those
hold on the canonical solution (evaluated concretely on HumanEval+ inputs in a sandboxed worker: a clause
failing there is a wrong formalization), and how many HumanEvalFix buggy programs the clauses that hold on
the canonical solution refute on the same inputs. Prints the figures and a fixed-seed sample of 30
formalized sentences for hand-checking; writes everything to ``--json``.

Before HumanEval, it prints reach and hand-checked precision on the docstrings of four PyPI libraries
(benchmarks/author_libs.py; skipped when not installed).

Usage: python benchmarks/author_reach.py [--data ../shared/data] [--max-inputs 200] [--json FILE] [--libraries-only]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import author_libs  # noqa: E402  (benchmarks/author_libs.py: reach and precision on PyPI libraries)

from evalgap.translators.from_prose import draft_spec, load_units, render_req
from evalgap.verifier.authoring.author import compile_clauses, evaluate_clauses, validate_draft

SEED = 20261130


def _rows(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _cases(plus: dict[str, Any] | None, max_inputs: int) -> list[dict[str, str]]:
    if plus is None:
        return []
    inputs = list(plus.get("base_input", [])) + list(plus.get("plus_input", []))[: max(0, max_inputs - len(
        plus.get("base_input", [])))]
    return [{"args": repr(list(a))} for a in inputs[:max_inputs]]


def run(data: Path, max_inputs: int) -> dict[str, Any]:
    """Measure; returns the figures and per-sentence records."""
    he = _rows(data / "humaneval" / "HumanEval.jsonl.gz")
    plus = {r["task_id"]: r for r in _rows(data / "humanevalplus" / "HumanEvalPlus.jsonl.gz")}
    fix = {r["task_id"]: r for r in _rows(data / "humanevalfix-python" / "humanevalfix_python_pairs.jsonl.gz")}
    records: list[dict[str, Any]] = []
    totals = {"tasks": len(he), "sentences": 0, "examples": 0, "formalized": 0, "signature_only": 0,
              "preconditions": 0, "rejected_by_examples": 0, "postcondition_sentences": 0, "hold": 0,
              "fail": 0, "tasks_with_clauses": 0, "buggy_programs": 0, "buggy_refuted": 0}
    tmp = Path(tempfile.mkdtemp(prefix="author-reach-"))
    for row in he:
        task, fn = row["task_id"], row["entry_point"]
        src = tmp / f"{task.replace('/', '_')}.py"
        src.write_text(row["prompt"], encoding="utf-8")
        draft = draft_spec(load_units(src, function=fn), name="he")
        draft, _ = validate_draft(draft)
        reqs = draft.requirements()
        totals["examples"] += sum(1 for r in reqs if r.example is not None)
        sents = [r for r in reqs if r.example is None]
        totals["sentences"] += len(sents)
        totals["rejected_by_examples"] += sum(1 for r in sents for _, why in r.rejected if "example" in why)
        text = render_req(draft)
        params, pres, clauses = compile_clauses(text, fn)
        canon = run_c = None
        cases = _cases(plus.get(task), max_inputs)
        if clauses and cases:
            canon = evaluate_clauses(row["prompt"] + row["canonical_solution"], fn, params, pres, clauses, cases,
                                     per_call_s=1.0, budget_s=30.0)
        bug = fix.get(task)
        holding = []
        for r in sents:
            if not r.clauses:
                continue
            if r.signature_only:
                totals["signature_only"] += 1
                continue
            totals["formalized"] += 1
            kinds = {c.kind for _, c in r.clauses}
            rec: dict[str, Any] = {"task": task, "id": r.id, "sentence": r.prose, "rules": list(r.rules),
                                   "clauses": [f"{c.kind} {c.text}" for _, c in r.clauses]}
            if kinds == {"requires"}:
                totals["preconditions"] += 1
                rec["status"] = "precondition"
            else:
                totals["postcondition_sentences"] += 1
                mine = [c for c in clauses if c.req_id == r.id]
                if canon is None or "error" in canon:
                    rec["status"] = "not-evaluated"
                else:
                    st = [canon["clauses"][c.key] for c in mine]
                    ok = all(s["failed"] == 0 and s["error"] == 0 for s in st)
                    rec["status"] = "holds" if ok else "fails-on-canonical"
                    rec["evaluations"] = sum(s["held"] + s["failed"] + s["vacuous"] for s in st)
                    totals["hold" if ok else "fail"] += 1
                    if ok:
                        holding += mine
            records.append(rec)
        if holding:
            totals["tasks_with_clauses"] += 1
        if bug is not None and holding and cases:
            prog = bug["buggy_program_with_visible_check"].split("\ndef check(")[0]
            totals["buggy_programs"] += 1
            run_c = evaluate_clauses(prog, fn, params, pres, holding, cases, per_call_s=1.0, budget_s=30.0)
            refuted = "error" not in run_c and any(run_c["clauses"][c.key]["failed"] for c in holding)
            totals["buggy_refuted"] += int(refuted)
            for rec in records:
                if rec["task"] == task and rec.get("status") == "holds":
                    rec["refutes_buggy"] = refuted and any(run_c["clauses"][c.key]["failed"]
                                                           for c in holding if c.req_id == rec["id"])
    formal = [r for r in records]
    sample = random.Random(SEED).sample(formal, min(30, len(formal)))
    return {"totals": totals, "records": records, "sample": sample}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--max-inputs", type=int, default=200)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--libraries-only", action="store_true", help="only the PyPI libraries' docstrings")
    args = ap.parse_args(argv)
    print("PyPI libraries (dev: pydash, humanize; frozen eval: more-itertools, toolz; benchmarks/author_libs.py, "
          "labels in author_libs_labels.json):")
    author_libs.main([])
    if args.libraries_only:
        return 0
    if not (args.data / "humaneval" / "HumanEval.jsonl.gz").exists():
        print(f"HumanEval data not found under {args.data}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    res = run(args.data, args.max_inputs)
    t = res["totals"]
    print(f"HumanEval prompts: {t['tasks']}; sentences: {t['sentences']}; examples: {t['examples']} (example-only)")
    print(f"formalized sentences (excluding examples and {t['signature_only']} signature-only): {t['formalized']} "
          f"({100 * t['formalized'] / max(1, t['sentences']):.1f}%): {t['preconditions']} preconditions, "
          f"{t['postcondition_sentences']} postconditions")
    print(f"postcondition sentences holding on the canonical solution (HumanEval+ inputs, <= {args.max_inputs} "
          f"each): {t['hold']} of {t['hold'] + t['fail']}; failing (wrong formalizations): {t['fail']}")
    print(f"clauses rejected because they contradicted the prompt's own examples: {t['rejected_by_examples']}")
    print(f"HumanEvalFix buggy programs refuted by the holding clauses: {t['buggy_refuted']} of "
          f"{t['buggy_programs']} with such clauses (164 buggy programs in all)")
    print(f"\nsample of {len(res['sample'])} formalized sentences (seed {SEED}) for hand-checking:")
    for i, r in enumerate(res["sample"], 1):
        print(f"{i:2}. {r['task']} {r['id']} [{r['status']}] {r['sentence']!r}\n      -> {' ; '.join(r['clauses'])}")
    print(f"\n[{time.monotonic() - t0:.0f} s]")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
