"""Rates with Wilson intervals, CSV tables, pass@1 per source, seeded samples and the multi-model llm-runs
adapter of ``evalgap compare`` (issue 25: tables a paper can cite)."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest

from evalgap.research.dataset import Candidate, Task
from evalgap.research.errors import DatasetError
from evalgap.research.humaneval import llm_run_candidates
from evalgap.research.run import sample_candidates
from evalgap.research.stats import wilson
from evalgap.research.summary import render_markdown, summarize
from evalgap.research.tables import rates_csv, results_csv
from evalgap.research.verdicts import CandidateResult, EvalVerdict
from evalgap.verifier.findings import Verdict

A, R, U = Verdict.NO_COUNTEREXAMPLE, Verdict.REFUTED, Verdict.UNKNOWN


def test_wilson_matches_published_values() -> None:
    # Brown, Cai & DasGupta (2001), and the closed form: 0 of 10 -> [0, 0.2775]; 5 of 10 -> [0.2366, 0.7634]
    assert wilson(0, 10) == (0.0, 0.2775)
    assert wilson(5, 10) == (0.2366, 0.7634)
    assert wilson(10, 10) == (0.7225, 1.0)
    lo, hi = wilson(81, 263) or (0.0, 0.0)
    assert lo < 81 / 263 < hi and hi - lo < 0.12
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(3, 2)


def _cr(cid: str, source: str, digest: str, **outs: Verdict) -> CandidateResult:
    return CandidateResult(cid, "T", source, None, digest,
                           tuple(EvalVerdict(k.replace("_", "-"), v, "why", cpu_s=0.5) for k, v in outs.items()))


RESULTS = [
    _cr("g1", "m1", "d1", ground_truth=R, tests=A, crosshair=R),
    _cr("g2", "m1", "d2", ground_truth=R, tests=A, crosshair=A),
    _cr("ok", "m1", "d3", ground_truth=A, tests=A, crosshair=R),
    _cr("o2", "m2", "d4", ground_truth=A, tests=A, crosshair=A),
    _cr("b", "m2", "d5", ground_truth=R, tests=R, crosshair=U),
]


def test_every_rate_has_its_interval_and_pass_at_1_is_per_source() -> None:
    s = summarize(RESULTS)
    assert s.accept["tests"]["interval"] == list(wilson(4, 5) or ())
    assert s.recall["crosshair"]["recall"] == 0.5 and s.recall["crosshair"]["interval"] == list(wilson(1, 2) or ())
    assert s.false_refutation_rate["crosshair"] == {"rejected": 1, "outside_domain": 0, "right": 2, "rate": 0.5,
                                                    "interval": list(wilson(1, 2) or ())}
    assert s.pass_at_1["m1"]["tests"]["rate"] == 1.0 and s.pass_at_1["m1"]["ground-truth"]["rate"] == round(1 / 3, 4)
    assert s.pass_at_1["m2"]["crosshair"] == {"accept": 1, "n": 2, "rate": 0.5, "interval": list(wilson(1, 2) or ())}
    md = render_markdown(s)
    assert "Gap programs: `g1`, `g2`." in md
    m1 = next(ln for ln in md.splitlines() if ln.startswith("| m1 |"))
    assert m1.startswith("| m1 | 33.3 % [") and "100.0 %" in m1 and "pass@1 under each evaluator" in md
    assert "1 (50.0 %) | [9.4, 90.5]" in md  # 1 of 2, its interval in percent


def test_csv_tables_round_trip_through_a_csv_reader() -> None:
    s = summarize(RESULTS)
    rates = list(csv.DictReader(io.StringIO(rates_csv(s))))
    recall = next(r for r in rates if r["table"] == "gap_recall" and r["evaluator"] == "crosshair")
    assert (recall["k"], recall["n"], recall["rate"]) == ("1", "2", "0.5")
    assert (float(recall["ci_low"]), float(recall["ci_high"])) == wilson(1, 2)
    p1 = [r for r in rates if r["table"] == "pass_at_1" and r["group"] == "m2"]
    assert {r["evaluator"]: r["k"] for r in p1} == {"ground-truth": "1", "tests": "1", "crosshair": "1"}
    rows = list(csv.DictReader(io.StringIO(results_csv(RESULTS))))
    assert len(rows) == 15 and rows[0]["candidate_id"] == "g1" and rows[0]["outcome"] == "reject"
    assert {r["outcome"] for r in rows if r["candidate_id"] == "b"} == {"reject", "unknown"}


def _c(cid: str, source: str, label: str) -> Candidate:
    return Candidate(cid, "T", source, "def f(): pass\n", labels=(("plus", label),))


def test_seeded_sample_per_source_and_label_is_reproducible() -> None:
    cands = [_c(f"a{i}", "m1", "fail") for i in range(10)] + [_c(f"b{i}", "m1", "pass") for i in range(3)] \
        + [_c(f"c{i}", "m2", "fail") for i in range(8)]
    one = sample_candidates(cands, 4, seed=7)
    assert one == sample_candidates(list(cands), 4, seed=7)
    assert [c.candidate_id[0] for c in one].count("a") == 4 and [c.candidate_id[0] for c in one].count("b") == 3
    assert [c.candidate_id[0] for c in one].count("c") == 4
    assert [c.candidate_id for c in one] == [c.candidate_id for c in cands if c in one]  # dataset order kept
    others = {tuple(c.candidate_id for c in sample_candidates(cands, 4, seed=s)) for s in range(5)}
    assert len(others) > 1  # the seed matters
    with pytest.raises(DatasetError):
        sample_candidates(cands, 0, seed=0)


def _task(tid: str) -> Task:
    return Task(tid, "f", "prose")


def _write_runs(path: Path, rows: list[dict[str, object]]) -> None:
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)


def test_llm_runs_reads_every_runs_file_and_keeps_the_model(tmp_path: Path) -> None:
    runs = tmp_path / "llm-runs"
    runs.mkdir()
    _write_runs(runs / "humaneval_model-a_runs.jsonl.gz",
                [{"model": "model-a", "task_id": "HumanEval/0", "run": 1, "code": "def f(): return 1\n"},
                 {"model": "model-a", "task_id": "HumanEval/9", "run": 1, "code": "x"}])
    _write_runs(runs / "humaneval_model-b_runs.jsonl",  # no model column: taken from the file name
                [{"task_id": "HumanEval/0", "run": 2, "code": "def f(): return 2\n",
                  "recheck_humanevalplus": {"status": "fail"}}])
    cands = llm_run_candidates(tmp_path, {"HumanEval/0": _task("HumanEval/0")})
    assert [(c.candidate_id, c.source) for c in cands] == [("HumanEval/0#model-a#run1", "model-a"),
                                                           ("HumanEval/0#model-b#run2", "model-b")]
    assert dict(cands[1].labels)["recheck_humanevalplus"] == "fail"
    (runs / "humaneval_model-b_runs.jsonl").unlink()
    assert [c.candidate_id for c in llm_run_candidates(tmp_path, {"HumanEval/0": _task("HumanEval/0")})] == \
        ["HumanEval/0#run1"]  # one model: the IDs the recorded results use
    (runs / "humaneval_model-a_runs.jsonl.gz").unlink()
    with pytest.raises(DatasetError, match="no runs files"):
        llm_run_candidates(tmp_path, {})


def test_compare_writes_the_csv_tables_and_samples_from_the_command_line(tmp_path: Path) -> None:
    from egtest import run_cli
    from evalgap.research.dataset import Dataset, save_dataset

    ref = "def largest(l: list[int]) -> int:\n    return max(l)\n"
    task = Task("toy/largest", "largest", "The largest element.", prompt=ref, reference=ref,
                tests="def check(candidate):\n    assert candidate([1, 3, 2]) == 3\n",
                ground_truth_inputs=json.dumps([[[1, 3, 2]], [[-4, -2]]]), param_types=(("l", "list[int]"),))
    wrong = "def largest(l):\n    return l[0] if len(l) < 3 else max(l)\n"
    cands = tuple(Candidate(f"c{i}", task.task_id, "toy", wrong + "#" * i + "\n") for i in range(5))
    save_dataset(Dataset("toy", (task,), cands), tmp_path / "toy.jsonl")
    r = run_cli("compare", str(tmp_path / "toy.jsonl"), "--evaluators", "tests", "-o", str(tmp_path / "out"),
                "--no-plots", "--sample", "2", "--seed", "3")
    assert r.exit_code == 1, r.stderr
    assert r.stdout.strip().startswith("2 candidates")
    rates = list(csv.DictReader((tmp_path / "out" / "rates.csv").open(encoding="utf-8")))
    assert {(x["table"], x["evaluator"], x["k"], x["n"]) for x in rates if x["table"] == "accept_rate"} == \
        {("accept_rate", "tests", "2", "2"), ("accept_rate", "ground-truth", "0", "2")}
    assert len((tmp_path / "out" / "results.csv").read_text(encoding="utf-8").splitlines()) == 1 + 2 * 2


def test_the_committed_split_is_what_the_rule_gives_and_parts_do_not_overlap() -> None:
    from evalgap.research.splits import frozen_split, part_of, tasks_in_part

    for bench, size in (("humaneval", 164), ("quixbugs", 40), ("mbppplus", 399)):
        sp = frozen_split(bench)
        assert len(sp["dev"]) + len(sp["eval"]) == size and not set(sp["dev"]) & set(sp["eval"])
        assert all(part_of(t) == "dev" for t in sp["dev"]) and all(part_of(t) == "eval" for t in sp["eval"])
        assert 0.35 < len(sp["eval"]) / size < 0.65  # about half each
    he = frozen_split("humaneval")
    assert tasks_in_part(["HumanEval/0", "HumanEval/1", "HumanEval/2"], "eval") == \
        [t for t in ["HumanEval/0", "HumanEval/1", "HumanEval/2"] if t in he["eval"]]
    with pytest.raises(DatasetError):
        tasks_in_part(["HumanEval/0"], "test")
    with pytest.raises(DatasetError, match="no committed split"):
        frozen_split("nosuch")


def test_compare_part_keeps_only_that_parts_tasks(tmp_path: Path) -> None:
    from evalgap.research.dataset import Dataset, save_dataset
    from evalgap.research.run import resolve_dataset
    from evalgap.research.splits import part_of

    tasks = tuple(Task(f"toy/{i}", "f", "prose") for i in range(12))
    cands = tuple(Candidate(f"c{i}", t.task_id, "m", "def f(): pass\n") for i, t in enumerate(tasks))
    save_dataset(Dataset("toy", tasks, cands), tmp_path / "toy.jsonl")
    dev = resolve_dataset(str(tmp_path / "toy.jsonl"), part="dev")
    ev = resolve_dataset(str(tmp_path / "toy.jsonl"), part="eval")
    assert {t.task_id for t in dev.tasks} == {t.task_id for t in tasks if part_of(t.task_id) == "dev"}
    assert {c.task_id for c in ev.candidates} == {t.task_id for t in tasks if part_of(t.task_id) == "eval"}
    assert len(dev.candidates) + len(ev.candidates) == 12 and dev.candidates and ev.candidates


def test_input_domain_rule_from_visible_inputs() -> None:
    from evalgap.research.domains import call_arguments, infer_domain, outside

    d = infer_domain([["abc", 12, [1.5]], ["x", -300, [2.0]], [{"k": "v"}, True, []]])
    assert (d.ascii_text, d.int_digits, d.float_max, d.finite_floats, d.inputs) == (True, 3, 2.0, True, 3)
    assert d.describe() == "ASCII text; integers below 10**9; finite floats up to 2e+06 (from 3 visible inputs)"
    assert outside(d, "f('\\x80', 1, [1.0])") == "non-ASCII text ('\\x80'); the task's visible inputs are ASCII"
    assert outside(d, "f('a', 999999999, [1.0])") is None and "10 digits" in str(outside(d, "f('a', 1000000000, [])"))
    assert "non-finite" in str(outside(d, "f('a', 1, [float('nan')])"))
    assert "magnitude" in str(outside(d, "f('a', 1, [3e6])")) and outside(d, "f('a', 1, [1.9e6])") is None
    assert outside(d, "f(x)") is None and outside(d, None) is None and outside(d, "not a call(") is None
    assert call_arguments("f([1, 2], k='a')") == [[1, 2], "a"]
    wide = infer_domain([["é", 10**20, float("inf")]])
    assert outside(wide, "f('\\x80', 10**3, float('inf'))") is None


def test_refutations_outside_the_domain_count_apart_from_recall_and_false_refutations() -> None:
    from evalgap.research.domains import infer_domain

    def cr(cid: str, gt: Verdict, tests: Verdict, ch: Verdict, cex: str | None) -> CandidateResult:
        return CandidateResult(cid, "T", "m", None, cid, (
            EvalVerdict("ground-truth", gt, "g"), EvalVerdict("tests", tests, "t"),
            EvalVerdict("crosshair", ch, "c", counterexample=cex)))

    rs = [cr("gap-in", R, A, R, "f('ab')"), cr("gap-out", R, A, R, "f('\\u00e9')"), cr("gap-miss", R, A, A, None),
          cr("right-out", A, A, R, "f('\\u00e9')"), cr("right-in", A, A, R, "f('zz')"), cr("right-ok", A, A, A, None)]
    s = summarize(rs, {"T": infer_domain([["abc"], ["x"]])})
    assert s.recall["crosshair"]["rejected"] == 1 and s.recall["crosshair"]["outside_domain"] == 1
    assert s.recall["crosshair"]["recall"] == round(1 / 3, 4)
    fr = s.false_refutation_rate["crosshair"]
    assert (fr["rejected"], fr["outside_domain"], fr["right"]) == (1, 1, 3)
    assert [f["outside_domain"] is not None for f in s.false_refutations["crosshair"]] == [True, False]
    assert s.domains == {"T": "ASCII text (from 2 visible inputs)"}
    md = render_markdown(s)
    assert "1 more outside the benchmark's domain (not counted)" in md and "| crosshair | 1 (33.3 %)" in md
    plain = summarize(rs)  # no domains: every refutation counts
    assert plain.recall["crosshair"]["rejected"] == 2 and plain.false_refutation_rate["crosshair"]["rejected"] == 2
