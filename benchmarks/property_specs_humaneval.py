"""Validate the imported HumanEval property specs (specs/humaneval/nagini) on canonical and HumanEvalFix buggy.

A spec is *validated* when it holds on the canonical solution and refutes that task's HumanEvalFix buggy
program. Two evaluators are reported separately:

* ``spec-inputs``: the postconditions checked concretely (icontract enforced) on every HumanEval+ input;
* ``crosshair-prop``: CrossHair on the spec (``verified`` or ``no-counterexample`` with completed paths on the
  canonical solution; ``refuted``, replayed concretely, on the buggy one).

The runs themselves are ``evalgap compare`` commands (heavy; not part of the test suite):

    evalgap compare humanevalfix:../shared/data --specs specs/humaneval/nagini --tasks TASKS \
        --evaluators spec-inputs -j 1 -o /tmp/specin --no-plots
    evalgap compare humanevalfix:../shared/data --specs specs/humaneval/nagini --tasks TASKS \
        --evaluators crosshair-prop --budget 2 -j 1 -o /tmp/propval --no-plots

This script reads their ``progress.jsonl`` files (finished programs only: a partial run is reported as such)
and writes a Markdown table (task, verdict on canonical, verdict on buggy, validated) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _load(progress: Path, evaluator: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    if not progress.is_file():
        return out
    for line in progress.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        v = next((v for v in rec["verdicts"] if v["evaluator"] == evaluator), None)
        if v is None:
            continue
        tid, kind = rec["candidate_id"].split("#")
        out.setdefault(tid, {})[kind] = v["verdict"]
        out[tid][kind + "_reason"] = v["reason"]
        out[tid][kind + "_cex"] = v.get("counterexample") or ""
    return out


def _status(d: dict[str, str]) -> str:
    fixed, buggy = d.get("fixed"), d.get("buggy")
    if fixed is None or buggy is None:
        return "pending"
    holds = fixed in ("verified", "no-counterexample")
    if holds and buggy == "refuted":
        return "validated"
    if fixed == "refuted":
        return "fails on canonical"
    if not holds:
        return "unknown on canonical"
    return "misses the bug" if buggy in ("verified", "no-counterexample") else "unknown on buggy"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", type=Path, default=Path("specs/humaneval/nagini"))
    ap.add_argument("--spec-inputs", type=Path, required=True, help="output folder of the spec-inputs run")
    ap.add_argument("--crosshair", type=Path, help="output folder of the crosshair-prop run")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    tasks = sorted((p.stem.replace("HumanEval_", "HumanEval/") for p in a.specs.glob("HumanEval_*.req")
                    if not p.stem.endswith("_helpers")), key=lambda t: int(t.split("/")[1]))
    si = _load(a.spec_inputs / "progress.jsonl", "spec-inputs")
    ch = _load(a.crosshair / "progress.jsonl", "crosshair-prop") if a.crosshair else {}
    rows, counts_si, counts_ch = [], {}, {}
    for t in tasks:
        s1, s2 = _status(si.get(t, {})), _status(ch.get(t, {}))
        counts_si[s1] = counts_si.get(s1, 0) + 1
        counts_ch[s2] = counts_ch.get(s2, 0) + 1
        note = ""
        if s1 == "fails on canonical":
            note = f"canonical fails on `{si[t].get('fixed_cex', '')[:80]}`: {si[t].get('fixed_reason', '')[:90]}"
        rows.append(f"| {t} | {si.get(t, {}).get('fixed', '-')} | {si.get(t, {}).get('buggy', '-')} | {s1} | "
                    f"{ch.get(t, {}).get('fixed', '-')} | {ch.get(t, {}).get('buggy', '-')} | {s2} | "
                    f"{note.replace('|', '/')} |")
    md = ["# HumanEval property specs imported from HumanEval-Nagini: validation", "",
          f"{len(tasks)} imported specs (see specs/humaneval/nagini/IMPORT_REPORT.md for the 26 not imported).", "",
          "Concrete (spec-inputs, every HumanEval+ input): " + ", ".join(f"{k}: {v}" for k, v in sorted(counts_si.items())),
          "", "CrossHair (crosshair-prop, 2 s per requirement): " + ", ".join(f"{k}: {v}" for k, v in sorted(counts_ch.items())),
          "", "| task | canonical (inputs) | buggy (inputs) | status | canonical (CrossHair) | buggy (CrossHair) | status | note |",
          "|---|---|---|---|---|---|---|---|", *rows, ""]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("\n".join(md))
    print(f"spec-inputs: {counts_si}; crosshair: {counts_ch}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
