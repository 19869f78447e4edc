"""nl2postcond comparison of the headline run: GPT-4 postconditions (Endres et al., FSE 2024) as property specs.

The postconditions are nl2postcond's ``gpt4_simple_with_ref`` responses imported into ``.req`` by
``evalgap import nl2postcond`` (``specs/humaneval/nl2postcond/``; one requirement per response, responses outside
the spec language are not imported, see its IMPORT_REPORT.md). Two filters keep the requirements that hold for the
canonical solution:

* ``plus``: on every HumanEval+ input (the issue's reference: caught 26 of 43 gap programs, no false rejection
  of 100 right programs);
* ``tests``: only on the inputs of HumanEval's own tests (the literal ``candidate(...)`` calls of ``check``;
  the reference: 14 of 100 right programs falsely rejected).

A filter runs the ``spec-inputs`` evaluator (every postcondition checked concretely, icontract enforced, in a
sandboxed worker) on the canonical solution, drops the requirement it names as failing (false, raising, or too
slow), and repeats until the rest holds. Then each selected program (the headline selection: the labelled gap
runs plus ``--right`` labelled-right programs, distinct programs once) is checked with the kept requirements on
every HumanEval+ input: a gap program (labelled wrong) with the ``plus`` requirements, a right program with the
``tests`` requirements (a right program agrees with the canonical solution on every HumanEval+ input, so the
``plus`` requirements cannot reject it). A program is *caught* when the check fails; a failure that is the
program raising (not a false postcondition) is counted as a crash as well. Resumable (``OUT/filters.jsonl``,
``OUT/rows.jsonl``); ``--resummarize --headline CANDIDATES`` recounts with the headline run's ground truth.
Only task IDs, run numbers and counts are written.

Usage (a heavy run, not part of the test suite):

    python benchmarks/nl2postcond_humaneval.py --data ../shared/data --right 100 -o /tmp/nl2p \
        --headline /tmp/headline20/candidates.jsonl
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from headline_humaneval import select  # noqa: E402

from evalgap.research.dataset import Candidate, Task  # noqa: E402
from evalgap.research.eval_worker import _call_text  # noqa: E402
from evalgap.research.evaluators import EvalSettings, evaluate  # noqa: E402
from evalgap.research.humaneval import build_dataset, canonical_candidates  # noqa: E402
from evalgap.verifier.findings import Verdict  # noqa: E402

SPECS = Path(__file__).resolve().parents[1] / "specs" / "humaneval" / "nl2postcond"


def test_inputs(tests: str) -> list[list[Any]]:
    """The argument lists of the literal ``candidate(...)`` calls in a HumanEval ``check`` (others skipped)."""
    out: list[list[Any]] = []
    for node in ast.walk(ast.parse(tests)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate" \
                and not node.keywords:
            try:
                args = [ast.literal_eval(a) for a in node.args]
            except (ValueError, SyntaxError, TypeError):
                continue
            if args not in out:
                out.append(args)
    return out


def split_requirements(spec_text: str) -> tuple[str, dict[str, str]]:
    """``(head, {requirement ID: its block})`` of an imported nl2postcond spec (head: up to the function line)."""
    lines = spec_text.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.startswith("  requirement "))
    head, blocks, cur = "".join(lines[:start]), {}, ""
    for ln in lines[start:]:
        if ln.startswith("  requirement "):
            cur = ln.split()[1]
            blocks[cur] = ""
        blocks[cur] += ln
    return head, blocks


def _failing_req(reason: str, ids: list[str]) -> str | None:
    m = re.match(r"\s*([A-Za-z0-9_.-]+):", reason)
    if m and m.group(1) in ids:
        return m.group(1)
    m = re.search(r"spec error on \d+ input\(s\): ([A-Za-z0-9_.-]+):", reason)
    return m.group(1) if m and m.group(1) in ids else None


def kept_requirements(task: Task, inputs: list[list[Any]],
                      s: EvalSettings) -> tuple[list[str], list[list[Any]], list[str]]:
    """The requirement IDs of ``task``'s spec that hold for the canonical solution on ``inputs``, the inputs on
    which the canonical solution returns normally (the others are outside the domain), and the log.

    Raises nothing; an outcome that names no requirement drops every remaining one (nothing is kept unchecked).
    """
    head, blocks = split_requirements(task.spec_text)
    ids, log = list(blocks), []
    inputs = list(inputs)
    canon = canonical_candidates({task.task_id: task})[0]
    while ids:
        t = replace(task, spec_text=head + "".join(blocks[i] for i in ids), ground_truth_inputs=json.dumps(inputs))
        v = evaluate("spec-inputs", t, canon, s)
        if v.verdict is Verdict.NO_COUNTEREXAMPLE:
            break
        if v.verdict is Verdict.REFUTED and ": raised " in v.reason and v.counterexample:
            # the canonical solution itself raises: the input is outside the domain, not the requirement's fault
            drop = [x for x in inputs if _call_text(task.entry_point, x) == v.counterexample]
            if drop:
                inputs = [x for x in inputs if x not in drop]
                log.append(f"{task.task_id}: input outside the domain (the reference raises): {v.counterexample}")
                continue
        bad = _failing_req(v.reason, ids)
        log.append(f"{task.task_id}: dropped {bad or 'all'}: {v.verdict.value}: {v.reason[:160]}")
        if bad is None:
            ids = []
        else:
            ids.remove(bad)
    return ids, inputs, log


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--right", type=int, default=100)
    ap.add_argument("-o", "--out", type=Path, default=Path("/tmp/evalgap-nl2p"))
    ap.add_argument("--headline", type=Path, help="candidates.jsonl of the headline run: its ground-truth "
                    "verdicts decide gap/right (otherwise the dataset's labels)")
    ap.add_argument("--resummarize", action="store_true", help="reuse OUT/nl2postcond.json's checks; only "
                    "recompute the counts (e.g. with --headline once the headline run has finished)")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    s = EvalSettings()
    ds = select(build_dataset("llm-runs", a.data, specs_dir=SPECS), a.right)
    gt: dict[str, str] = {}
    if a.headline:
        for line in a.headline.read_text().splitlines():
            r = json.loads(line)
            v = {x["evaluator"]: x["verdict"] for x in r["verdicts"]}
            if v.get("tests") == "no-counterexample":
                gt[r["candidate_id"]] = "wrong" if v.get("ground-truth") == "refuted" else \
                    "right" if v.get("ground-truth") == "no-counterexample" else "unknown"
    if a.resummarize:  # from the (possibly partial) rows.jsonl and filters.jsonl
        filt = [json.loads(x) for x in (a.out / "filters.jsonl").read_text().splitlines()]
        rws = [json.loads(x) for x in (a.out / "rows.jsonl").read_text().splitlines()]
        for r in rws:
            r["truth"] = gt.get(r["candidate_id"], r["truth"])
        kp = {n: {f["task_id"]: f[n] for f in filt} for n in ("plus", "tests")}
        return _summarize(a.out, rws, kp, [x for f in filt for x in f["log"]], len(filt))
    progs: dict[str, Candidate] = {}
    for c in ds.candidates:
        progs.setdefault(c.digest, c)
    tasks = {c.task_id for c in progs.values()}
    kept: dict[str, dict[str, list[str]]] = {"plus": {}, "tests": {}}
    domain: dict[str, list[list[Any]]] = {}
    log: list[str] = []
    # resumable: filters in OUT/filters.jsonl, checked programs in OUT/rows.jsonl (one line each, appended)
    fpath, rpath = a.out / "filters.jsonl", a.out / "rows.jsonl"
    done_f = {json.loads(x)["task_id"]: json.loads(x) for x in fpath.read_text().splitlines()} \
        if fpath.is_file() else {}
    done_r = {json.loads(x)["candidate_id"]: json.loads(x) for x in rpath.read_text().splitlines()} \
        if rpath.is_file() else {}
    order = sorted(tasks, key=lambda t: (t not in {c.task_id for c in progs.values()
                                                   if dict(c.labels).get("recheck_humanevalplus") != "pass"},
                                         int(t.split("/")[1])))
    for tid in order:  # the gap programs' tasks first
        task = ds.task(tid)
        if tid not in done_f:
            rec: dict[str, Any] = {"task_id": tid, "plus": [], "tests": [], "domain": [], "log": []}
            if task.spec_text:
                rec["plus"], rec["domain"], lg = kept_requirements(task, task.inputs(), s)
                rec["tests"], _, lg2 = kept_requirements(task, test_inputs(task.tests), s)
                rec["log"] = lg + [f"(tests filter) {x}" for x in lg2]
            with fpath.open("a") as fh:
                fh.write(json.dumps(rec) + "\n")
            done_f[tid] = rec
        kept["plus"][tid], kept["tests"][tid] = done_f[tid]["plus"], done_f[tid]["tests"]
        domain[tid] = done_f[tid]["domain"]
        log += done_f[tid]["log"]
        print(tid, len(kept["plus"][tid]), len(kept["tests"][tid]), file=sys.stderr, flush=True)
    rows = []
    for c in progs.values():
        if c.candidate_id in done_r:
            rows.append(done_r[c.candidate_id])
            continue
        task = ds.task(c.task_id)
        wrong = dict(c.labels).get("recheck_humanevalplus") in ("fail", "timeout")
        label = "wrong" if wrong else "right"
        row: dict[str, Any] = {"candidate_id": c.candidate_id, "task_id": c.task_id, "run": c.run, "truth": label}
        for name, ids in kept.items():
            # a right program agrees with the canonical solution on every HumanEval+ input, so the `plus`
            # requirements (true of the canonical's results there) cannot reject it: only `tests` is checked
            # and a gap program only with `plus` (the reference's figure)
            if (name == "plus") != wrong:
                row[name] = "not-run"
                continue
            if not ids.get(c.task_id):
                row[name] = "no-spec"
                continue
            head, blocks = split_requirements(task.spec_text)
            t = replace(task, spec_text=head + "".join(blocks[i] for i in ids[c.task_id]),
                        ground_truth_inputs=json.dumps(domain[c.task_id]))
            v = evaluate("spec-inputs", t, c, s)
            row[name] = v.verdict.value
            if v.verdict is Verdict.REFUTED:
                row[name + "_kind"] = "crash" if ": raised " in v.reason else "postcondition"
                row[name + "_input"] = v.counterexample
        rows.append(row)
        with rpath.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(c.candidate_id, label, row.get("plus"), row.get("tests"), file=sys.stderr, flush=True)
    return _summarize(a.out, rows, kept, log, len(tasks))


def _summarize(out: Path, rows: list[dict[str, Any]], kept: dict[str, dict[str, list[str]]], log: list[str],
               n_tasks: int) -> int:
    def count(truth: str, name: str, kind: str | None = None) -> int:
        return sum(1 for r in rows if r["truth"] == truth and r[name] == "refuted"
                   and (kind is None or r.get(name + "_kind") == kind))

    n_wrong = sum(1 for r in rows if r["truth"] == "wrong")
    n_right = sum(1 for r in rows if r["truth"] == "right")
    summary = {
        "programs": len(rows), "gap_programs": n_wrong, "right_programs": n_right,
        "right_programs_checked": sum(1 for r in rows if r["truth"] == "right" and r["tests"] != "no-spec"),
        "tasks": n_tasks,
        "tasks_with_kept_spec": {n: sum(1 for v in k.values() if v) for n, k in kept.items()},
        "requirements_kept": {n: sum(len(v) for v in k.values()) for n, k in kept.items()},
        "plus": {"caught": count("wrong", "plus"), "caught_crash": count("wrong", "plus", "crash"),
                 "false_rejections": count("right", "plus"),
                 "no_spec_gap": sum(1 for r in rows if r["truth"] == "wrong" and r["plus"] == "no-spec")},
        "tests": {"caught": count("wrong", "tests"), "caught_crash": count("wrong", "tests", "crash"),
                  "false_rejections": count("right", "tests"),
                  "false_rejected": [{"task_id": r["task_id"], "run": r["run"], "input": r.get("tests_input")}
                                     for r in rows if r["truth"] == "right" and r["tests"] == "refuted"]},
        "unknown": {n: sum(1 for r in rows if r[n] == "unknown") for n in kept},
    }
    (out / "nl2postcond.json").write_text(json.dumps({"summary": summary, "kept": kept, "log": log,
                                                        "rows": rows}, indent=1))
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
