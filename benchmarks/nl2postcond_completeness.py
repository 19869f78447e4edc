"""nl2postcond's *completeness* measure, reproduced on nl2postcond's own GPT-4 postconditions, beside evalgap's
spec strength on the same tasks.

**The artefact's definition** (Endres, Fakhoury, Chakraborty, Lahiri, "Can Large Language Models Transform
Natural Language Intent into Formal Method Postconditions?", FSE 2024, arXiv 2310.01831, §3: correctness and
*bug-completeness*; the artefact's ``QualitativeAnalysis/EvalPlusPostConditionsQualitative.xlsx``, sheet
``AnnotatedPostconditions``, exported as ``shared/data/nl2postcond/qualitative_annotated_postconditions.csv.gz``):
a postcondition is *correct* (``test_set_correct``) when it holds for the reference solution on every EvalPlus
test input; a correct postcondition's completeness is the share of the task's buggy code mutants it *kills*
(fails on at least one EvalPlus input of the mutant): ``Percent codes killed = num_codes_killed /
num_codes_run``, over the task's distinct buggy LLM-written programs (``code_mutants/distinct_code_mutants``:
GPT-3.5 programs, natural or prompted to be buggy, with at least one input giving a wrong output; the artefact
also reports the share of buggy (input, output) pairs, ``Percent inputs killed``).

**The reproduction here.** The postconditions are the qualitative sheet's own (its first 1,640 rows, 10 per
task, the ones with test results; the sheet does not name their prompt ablation; its other 342 rows are the
``gpt4_simple_with_ref`` texts, without results), so the artefact's figure exists for each: a seeded sample of
those the artefact marks correct and ran on mutants, translated by ``evalgap import nl2postcond``'s importer
(responses outside the spec language are passed over). Each is checked alone by the ``spec-inputs`` evaluator
(the postcondition asserted, concretely, on every HumanEval+ input: the artefact's method) on

* **buggy programs**: up to ``--buggy`` of the task's nl2postcond programs (``merged_codes_preprocessed``,
  compiling, not exact duplicates, seeded order) that evalgap's ground truth rejects with a wrong output (its first
  failing input returns a wrong value, not a raise or a timeout); the artefact's ``distinct_code_mutants`` file is not in the data snapshot, so this set is a sample of
  the same population, not the same programs; a kill is a false postcondition (a program that raises on an
  input is counted apart as a crash, as nl2postcond counts wrong *outputs* only);
* **reference mutants**: the first ``--mutants`` mechanical mutants of the reference
  (:mod:`evalgap.verifier.strength.mutants`) that the ground truth rejects.

For comparison, evalgap's property spec of the task (``specs/humaneval/properties``, all its requirements) is
checked the same way on the same programs. Resumable (``OUT/rows.jsonl``). Only task IDs, response numbers,
counts and rates are written (the programs have no licence to be copied).

Usage: ``python benchmarks/nl2postcond_completeness.py --data ../shared/data -o /tmp/nl2p-compl [--part dev|eval]
[--sample 12] [--seed 0] [--buggy 6] [--mutants 4] [--json FILE] [--md FILE]``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import random
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalgap.research.adapt_nl2postcond import build_nl2postcond_mutants
from evalgap.research.dataset import Candidate, Task
from evalgap.research.evaluators import EvalSettings, evaluate
from evalgap.research.humaneval import load_tasks
from evalgap.research.splits import tasks_in_part
from evalgap.research.stats import wilson
from evalgap.research.strength import mutant_candidates
from evalgap.verifier.findings import Verdict

ROOT = Path(__file__).resolve().parents[1]
PROP_SPECS = ROOT / "specs" / "humaneval" / "properties"
SETTINGS = EvalSettings(ground_truth_cpu_s=60.0)


def artefact_rows(data: Path) -> list[dict[str, Any]]:
    """The qualitative sheet's postconditions that the artefact marks correct and ran on buggy programs:
    ``{task_id, r_num, text, codes_run, codes_killed, percent_codes_killed}`` (its first 1,640 rows, 10 per
    task; the remaining rows, the ``gpt4_simple_with_ref`` texts, carry no test results)."""
    out = []
    with gzip.open(data / "nl2postcond" / "qualitative_annotated_postconditions.csv.gz", "rt", encoding="utf-8") as fh:
        for r in csv.DictReader(io.StringIO(fh.read())):
            if not r["r_num"] or r["test_set_correct"] != "True" or not r["num_codes_run"]:
                continue
            out.append({"task_id": r["Problem"], "r_num": int(float(r["r_num"])), "text": r["Post condition"],
                        "codes_run": int(float(r["num_codes_run"])), "codes_killed": int(float(r["num_codes_killed"])),
                        "percent_codes_killed": float(r["Percent codes killed"])})
    return out


def imported_specs(rows: list[dict[str, Any]], tasks: dict[str, Task], folder: Path) -> dict[str, str]:
    """``evalgap import nl2postcond``'s translation of ``rows`` into one ``.req`` text per task (responses
    outside the spec language are left out), via a JSONL file in the importer's input format in ``folder``."""
    from evalgap.research.import_nl2postcond import import_nl2postcond

    path = folder / "sheet_postconditions.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps({"task_id": r["task_id"], "response_num": r["r_num"], "compiles": True,
                                 "entry_point": tasks[r["task_id"]].entry_point,
                                 "postcondition_alone": r["text"]}) + "\n")
    return import_nl2postcond(path, {t: tasks[t].param_types for t in tasks}).specs


def single_requirement(req_text: str, req_id: str) -> str | None:
    """The spec text with only requirement ``req_id`` kept (None when the file has no such requirement)."""
    lines = req_text.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("  requirement ")]
    if not starts:
        return None
    head = lines[:starts[0]]
    for j, s in enumerate(starts):
        if lines[s].split()[1] == req_id:
            end = starts[j + 1] if j + 1 < len(starts) else len(lines)
            return "\n".join(head + lines[s:end]).rstrip() + "\n"
    return None


def _rid(r: dict[str, Any]) -> str:
    return f"NL2P-{r['task_id'].split('/')[1]}-{r['r_num']}"


def _verdict(task: Task, cand: Candidate, name: str) -> dict[str, Any]:
    v = evaluate(name, task, cand, SETTINGS)
    kind = "pass" if v.verdict in (Verdict.NO_COUNTEREXAMPLE, Verdict.VERIFIED) else (
        "killed" if v.verdict is Verdict.REFUTED and "postcondition false" in v.reason else
        "crash" if v.verdict is Verdict.REFUTED else "unknown")
    return {"verdict": v.verdict.value, "kind": kind, "reason": v.reason[:160], "cpu_s": v.cpu_s}


class _Cache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                    self.done[rec["key"]] = rec["value"]
                except (ValueError, KeyError):
                    continue

    def get(self, key: str, compute: Any) -> dict[str, Any]:
        if key not in self.done:
            self.done[key] = compute()
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"key": key, "value": self.done[key]}) + "\n")
        return self.done[key]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("-o", "--out", type=Path, required=True)
    ap.add_argument("--part", choices=("dev", "eval", "both"), default="both")
    ap.add_argument("--sample", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--buggy", type=int, default=6)
    ap.add_argument("--mutants", type=int, default=4)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--md", type=Path)
    a = ap.parse_args(argv)
    if not (a.data / "nl2postcond").is_dir():
        print(f"no nl2postcond data in {a.data} (pass --data)", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    cache = _Cache(a.out / "rows.jsonl")
    rows = artefact_rows(a.data)
    if a.part != "both":
        keep = set(tasks_in_part(sorted({r["task_id"] for r in rows}), a.part))
        rows = [r for r in rows if r["task_id"] in keep]
    random.Random(a.seed).shuffle(rows)
    all_tasks = load_tasks(a.data, sorted({r["task_id"] for r in rows}), PROP_SPECS)
    specs = imported_specs(rows, all_tasks, a.out)
    picked = []
    for r in rows:  # the first --sample rows, in seeded order, that the importer translates
        if len(picked) < a.sample and single_requirement(specs.get(r["task_id"], ""), _rid(r)):
            picked.append(r)
    picked.sort(key=lambda r: (int(r["task_id"].split("/")[1]), r["r_num"]))
    ids = sorted({r["task_id"] for r in picked}, key=lambda t: int(t.split("/")[1]))
    tasks = {t: all_tasks[t] for t in ids}
    pool = build_nl2postcond_mutants(a.data, ids, None)
    programs: dict[str, dict[str, list[Candidate]]] = {}
    for tid in ids:
        task = tasks[tid]
        cands = [c for c in pool.candidates if c.task_id == tid and c.source != "canonical"]
        random.Random(f"{a.seed}:{tid}").shuffle(cands)
        buggy: list[Candidate] = []
        for c in cands:
            if len(buggy) >= a.buggy:
                break
            gt = cache.get(f"gt:{tid}:{c.digest}", lambda c=c: _verdict(task, c, "ground-truth"))
            # a wrong output (not a raise or a timeout on the first failing input): nl2postcond's buggy codes
            # are those with a wrong output, not an error
            if gt["verdict"] == "refuted" and gt["reason"].startswith("returned "):
                buggy.append(c)
        muts: list[Candidate] = []
        for m in mutant_candidates([task], 3 * a.mutants):
            if len(muts) >= a.mutants:
                break
            gt = cache.get(f"gt:{tid}:{m.digest}", lambda m=m: _verdict(task, m, "ground-truth"))
            if gt["verdict"] == "refuted":
                muts.append(m)
        programs[tid] = {"buggy": buggy, "mutants": muts}
        print(f"{tid}: {len(buggy)} buggy programs, {len(muts)} non-equivalent mutants", flush=True)

    def score(task: Task, label: str, group: list[Candidate]) -> dict[str, int]:
        kinds = [cache.get(f"{label}:{task.task_id}:{c.digest}", lambda c=c: _verdict(task, c, "spec-inputs"))["kind"]
                 for c in group]
        return {k: kinds.count(k) for k in ("killed", "crash", "pass", "unknown")} | {"n": len(kinds)}

    out_rows = []
    for r in picked:
        tid, rid = r["task_id"], _rid(r)
        text = single_requirement(specs[tid], rid) or ""
        t = replace(tasks[tid], spec_text=text, spec_path=f"{tid}.req", spec_helpers="")
        row = {**{k: v for k, v in r.items() if k != "text"}, "requirement": rid, "buggy": score(t, rid, programs[tid]["buggy"]),
               "mutants": score(t, rid, programs[tid]["mutants"])}
        out_rows.append(row)
        print(f"{tid} {rid}: artefact {r['codes_killed']}/{r['codes_run']}; here buggy "
              f"{row['buggy']['killed']}/{row['buggy']['n']}, mutants {row['mutants']['killed']}/{row['mutants']['n']}",
              flush=True)
    props = []
    for tid in ids:
        t = tasks[tid]
        if not t.spec_text:
            continue
        props.append({"task_id": tid, "buggy": score(t, "prop", programs[tid]["buggy"]),
                      "mutants": score(t, "prop", programs[tid]["mutants"])})
    result = _summary(out_rows, props, a)
    text = _markdown(result)
    print(text)
    if a.json:
        a.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    if a.md:
        a.md.write_text(text, encoding="utf-8")
    return 0


def _pooled(items: list[dict[str, Any]], key: str) -> dict[str, Any]:
    k = sum(i[key]["killed"] for i in items)
    n = sum(i[key]["n"] for i in items)
    iv = wilson(k, n)
    return {"killed": k, "n": n, "rate": round(k / n, 4) if n else None, "interval": list(iv) if iv else None,
            "crash": sum(i[key]["crash"] for i in items)}


def _summary(rows: list[dict[str, Any]], props: list[dict[str, Any]], a: argparse.Namespace) -> dict[str, Any]:
    art_k, art_n = sum(r["codes_killed"] for r in rows), sum(r["codes_run"] for r in rows)
    iv = wilson(art_k, art_n)
    per = [r["buggy"]["killed"] / r["buggy"]["n"] for r in rows if r["buggy"]["n"]]
    return {"settings": {"part": a.part, "sample": a.sample, "seed": a.seed, "buggy": a.buggy, "mutants": a.mutants},
            "postconditions": len(rows), "tasks": len({r["task_id"] for r in rows}),
            "artefact": {"killed": art_k, "n": art_n, "rate": round(art_k / art_n, 4) if art_n else None,
                         "interval": list(iv) if iv else None,
                         "mean_percent_codes_killed": round(statistics.fmean(r["percent_codes_killed"] for r in rows), 4)
                         if rows else None},
            "nl2postcond_buggy": _pooled(rows, "buggy"), "nl2postcond_mutants": _pooled(rows, "mutants"),
            "nl2postcond_mean_buggy": round(statistics.fmean(per), 4) if per else None,
            "property_buggy": _pooled(props, "buggy"), "property_mutants": _pooled(props, "mutants"),
            "property_tasks": len(props), "rows": rows, "property_rows": props}


def _pct(p: dict[str, Any]) -> str:
    if not p.get("n"):
        return "n/a"
    lo, hi = p["interval"]
    return f"{p['killed']}/{p['n']} = {100 * p['rate']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]"


def _markdown(s: dict[str, Any]) -> str:
    st = s["settings"]
    ln = ["# nl2postcond completeness, reproduced, beside evalgap's spec strength", "",
          f"{s['postconditions']} postconditions of nl2postcond's qualitative sheet (correct by the artefact) of {s['tasks']} HumanEval tasks, "
          f"seeded sample (seed {st['seed']}, part {st['part']}); up to {st['buggy']} buggy nl2postcond programs and "
          f"{st['mutants']} non-equivalent reference mutants per task. Rates: killed / checked, 95 % Wilson interval.", "",
          "| measure | on | killed / n | ",
          "|---|---|---|",
          f"| nl2postcond completeness, **artefact's figure** (`num_codes_killed / num_codes_run`) | the artefact's "
          f"distinct buggy programs | {_pct(s['artefact'])} |",
          f"| the same postconditions, **reproduced** (`spec-inputs` on HumanEval+ inputs) | sampled buggy nl2postcond "
          f"programs | {_pct(s['nl2postcond_buggy'])} |",
          f"| the same postconditions | reference mutants | {_pct(s['nl2postcond_mutants'])} |",
          f"| evalgap property spec ({s['property_tasks']} tasks, all requirements) | the same buggy programs | "
          f"{_pct(s['property_buggy'])} |",
          f"| evalgap property spec | the same reference mutants | {_pct(s['property_mutants'])} |", "",
          f"Mean per-postcondition completeness: artefact {s['artefact']['mean_percent_codes_killed']}, reproduced "
          f"{s['nl2postcond_mean_buggy']}. Programs that raise on an input are not kills (nl2postcond counts wrong "
          f"outputs): crashes {s['nl2postcond_buggy']['crash']} (nl2postcond, buggy), {s['property_buggy']['crash']} "
          "(property spec, buggy).", "", "| task | postcondition | artefact killed/run | reproduced (buggy) | mutants |",
          "|---|---|---|---|---|"]
    ln += [f"| {r['task_id']} | {r['requirement']} | {r['codes_killed']}/{r['codes_run']} | "
           f"{r['buggy']['killed']}/{r['buggy']['n']} | {r['mutants']['killed']}/{r['mutants']['n']} |" for r in s["rows"]]
    return "\n".join(ln) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
