"""``evalgap tables`` (research/regenerate.py) on a tiny fixture, and spec strength beside recall in ``compare``
(research/strength.py): issue 25, "one command that regenerates every table" and "spec strength beside recall"."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from evalgap.research.cli import tables
from evalgap.research.dataset import Candidate, Dataset, Task, save_dataset
from evalgap.research.errors import DatasetError
from evalgap.research.regenerate import agree, load_manifest, regenerate
from evalgap.research.run import parse_where, resolve_dataset
from evalgap.research.splits import part_of
from evalgap.research.strength import MUTANT_SOURCE, mutant_candidates, strength_table
from evalgap.research.stats import wilson
from evalgap.research.verdicts import CandidateResult, EvalVerdict
from evalgap.verifier.findings import Verdict

REF = "def largest(l: list[int]) -> int:\n    best = l[0]\n    for x in l:\n        if x > best:\n            best = x\n    return best\n"
GAP = "def largest(l):\n    return l[0] if len(l) < 3 else max(l)\n"  # passes check(), wrong on [[-4, -2]]
TESTS = "def check(candidate):\n    assert candidate([1, 3, 2]) == 3\n"


def _task(tid: str) -> Task:
    return Task(tid, "largest", "The largest element.", prompt=REF, reference=REF, tests=TESTS,
                ground_truth_inputs=json.dumps([[[1, 3, 2]], [[-4, -2]], [[5]]]), base_inputs=json.dumps([[[1, 3, 2]]]),
                param_types=(("l", "list[int]"),))


def _fixture(tmp_path: Path) -> Path:
    assert (part_of("toy/0"), part_of("toy/1")) == ("dev", "eval")  # one task in each part
    tasks = (_task("toy/0"), _task("toy/1"))
    cands = []
    for t in tasks:
        cands += [Candidate(f"{t.task_id}#right", t.task_id, "m", "def largest(l):\n    return max(l)\n",
                            labels=(("kind", "right"),)),
                  Candidate(f"{t.task_id}#gap", t.task_id, "m", GAP, labels=(("kind", "gap"),)),
                  Candidate(f"{t.task_id}#bad", t.task_id, "m", "def largest(l):\n    return 0\n",
                            labels=(("kind", "bad"),))]
    save_dataset(Dataset("toy", tasks, tuple(cands)), tmp_path / "toy.jsonl")
    results = tmp_path / "results"
    results.mkdir()
    common = ('dataset = "{data}/toy.jsonl"\nevaluators = "tests"\nmutants = 3\n'
              "budget = 1.0\n")
    (results / "tables.toml").write_text(
        f'[[run]]\nname = "toy_dev"\npart = "dev"\npublish = "toy_dev"\n{common}\n'
        f'[[run]]\nname = "toy_eval"\npart = "eval"\npublish = "toy_eval"\n{common}\n'
        '[[comparison]]\nname = "toy_dev_vs_eval"\ntitle = "Toy: dev vs eval"\ndev = "toy_dev"\neval = "toy_eval"\n',
        encoding="utf-8")
    return results


def test_where_is_an_and_of_label_filters() -> None:
    assert parse_where("a=1, b = x") == [("a", "1"), ("b", "x")]
    assert parse_where(None) is None
    with pytest.raises(DatasetError, match="KEY=VALUE"):
        parse_where("novalue")


def test_mutants_are_candidates_of_their_own_source_and_never_in_the_gap(tmp_path: Path) -> None:
    ms = mutant_candidates([_task("toy/0")], 4)
    assert len(ms) == 4 and all(m.source == MUTANT_SOURCE and m.code != REF for m in ms)
    assert {dict(m.labels)["mutation"] for m in ms} >= {"ROR", "SDL"}  # round-robin over the operators
    assert mutant_candidates([Task("x", "f", "no reference")], 4) == []
    with pytest.raises(ValueError):
        mutant_candidates([_task("toy/0")], 0)
    save_dataset(Dataset("toy", (_task("toy/0"),), (Candidate("c", "toy/0", "m", GAP),)), tmp_path / "d.jsonl")
    ds = resolve_dataset(str(tmp_path / "d.jsonl"), mutants=2)
    assert [c.source for c in ds.candidates] == ["m", MUTANT_SOURCE, MUTANT_SOURCE]


def _mr(cid: str, gt: Verdict, ev: Verdict) -> CandidateResult:
    return CandidateResult(cid, "T", MUTANT_SOURCE, 1, cid, (EvalVerdict("ground-truth", gt, "r"),
                                                             EvalVerdict("crosshair", ev, "r")))


def test_strength_leaves_out_likely_equivalent_mutants_and_keeps_unknowns_in_the_denominator() -> None:
    R, A, U = Verdict.REFUTED, Verdict.NO_COUNTEREXAMPLE, Verdict.UNKNOWN
    t = strength_table([_mr("m1", R, R), _mr("m2", R, A), _mr("m3", R, U), _mr("m4", A, A), _mr("m5", R, R)])
    assert t["crosshair"] == {"mutants": 5, "equivalent": 1, "scored": 4, "killed": 2, "unknown": 1, "rate": 0.5,
                              "interval": list(wilson(2, 4) or ()), "tasks": 1, "survivors": ["m2"]}
    assert strength_table([]) == {}


def test_agree_is_five_points_or_mutual_intervals() -> None:
    assert agree({"rate": 0.90, "interval": [0.8, 0.95]}, {"rate": 0.86, "interval": [0.7, 0.93]}) == "within 5 pp"
    assert agree({"rate": 0.90, "interval": [0.7, 0.97]}, {"rate": 0.80, "interval": [0.6, 0.91]}) == \
        "inside each other's interval"
    assert agree({"rate": 0.95, "interval": [0.9, 0.98]}, {"rate": 0.60, "interval": [0.5, 0.7]}) == "no"
    assert agree({"rate": None}, {"rate": 0.5}) is None


def test_tables_regenerates_runs_and_the_dev_vs_eval_comparison_from_the_data(tmp_path: Path) -> None:
    results = _fixture(tmp_path)
    r = CliRunner().invoke(tables, ["--manifest", str(results / "tables.toml"), "--data", str(tmp_path),
                                    "--runs", str(tmp_path / "runs"), "--root", str(tmp_path)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "8 files written" in r.output
    dev = json.loads((results / "toy_dev.json").read_text(encoding="utf-8"))
    assert dev["gap"]["task_ids"] == ["toy/0"] and dev["gap"]["count"] == 1 and dev["right_programs"] == 1
    assert dev["recall"]["tests"]["rejected"] == 0  # the gap program passes the tests, by definition
    st = dev["strength"]["tests"]
    assert st["mutants"] == 3 and st["scored"] + st["equivalent"] == 3 and st["scored"] >= 1
    assert "evalgap compare" in dev["command"] and "--mutants 3" in dev["command"]
    md = (results / "toy_dev.md").read_text(encoding="utf-8")
    assert "## Spec strength" in md and "`toy/0#gap`" in md and "| tests | 0 (0.0 %) |" in md
    rows = list(csv.DictReader((results / "toy_dev_vs_eval.csv").open(encoding="utf-8")))
    got = {(x["evaluator"], x["metric"], x["part"]): (x["k"], x["n"], x["agree"]) for x in rows}
    assert got[("tests", "recall", "dev")] == ("0", "1", "within 5 pp")
    assert got[("tests", "recall", "eval")] == ("0", "1", "within 5 pp")
    assert got[("tests", "false_refutations", "dev")][:2] == ("0", "1")
    cmp_md = (results / "toy_dev_vs_eval.md").read_text(encoding="utf-8")
    assert cmp_md.startswith("# Toy: dev vs eval") and "| tests | recall" in cmp_md
    # --report-only rebuilds the same figures from the run folders, running nothing
    before = (results / "toy_dev_vs_eval.csv").read_text(encoding="utf-8")
    (results / "toy_dev_vs_eval.csv").unlink()
    written = regenerate(results / "tables.toml", tmp_path, tmp_path / "runs", tmp_path, report_only=True)
    assert results / "toy_dev.md" in written and results / "toy_dev_vs_eval.csv" in written
    assert (results / "toy_dev_vs_eval.csv").read_text(encoding="utf-8") == before
    # without the data (a user's clone), the comparison is rebuilt from the published figures alone
    (results / "toy_dev_vs_eval.csv").unlink()
    notes: list[str] = []
    written = regenerate(results / "tables.toml", tmp_path / "nowhere", tmp_path / "runs", tmp_path,
                         report_only=True, progress=notes.append)
    assert written == [results / "toy_dev_vs_eval.md", results / "toy_dev_vs_eval.csv"]
    assert any("kept the published figures" in n for n in notes)
    assert (results / "toy_dev_vs_eval.csv").read_text(encoding="utf-8") == before


def test_a_bad_manifest_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "tables.toml"
    p.write_text('[[run]]\nname = "a"\ndataset = "x"\npublish = "a"\nbogus = 1\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"\[\[run\]\] #1: unknown key\(s\) bogus"):
        load_manifest(p)
    p.write_text('[[comparison]]\nname = "c"\ndev = "a"\neval = "b"\n', encoding="utf-8")
    with pytest.raises(DatasetError, match="names no"):
        load_manifest(p)
    p.write_text("not = [toml", encoding="utf-8")
    r = CliRunner().invoke(tables, ["--manifest", str(p), "--report-only"])
    assert r.exit_code == 2 and "not TOML" in r.output and "Traceback" not in r.output


def _completeness_bench() -> Any:
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "nl2postcond_completeness.py"
    spec = importlib.util.spec_from_file_location("nl2postcond_completeness", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["nl2postcond_completeness"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_completeness_checks_one_postcondition_alone() -> None:
    bench = _completeness_bench()
    text = ('spec s "x"\n\nfunction f(x: int) -> int\n  requirement NL2P-1-0 "a"\n    ensures result >= 0\n'
            '  requirement NL2P-1-3 "b"\n    ensures result == x\n')
    one = bench.single_requirement(text, "NL2P-1-3")
    assert one == 'spec s "x"\n\nfunction f(x: int) -> int\n  requirement NL2P-1-3 "b"\n    ensures result == x\n'
    assert bench.single_requirement(text, "NL2P-1-9") is None
    pooled = bench._pooled([{"m": {"killed": 1, "n": 4, "crash": 0}}, {"m": {"killed": 2, "n": 2, "crash": 1}}], "m")
    assert pooled == {"killed": 3, "n": 6, "rate": 0.5, "interval": list(wilson(3, 6) or ()), "crash": 1}
