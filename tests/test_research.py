"""Tests of the research harness (``evalgap compare``): dataset model, adapters, evaluators, summary, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgap.research.compare import PROGRESS, CompareOptions, compare
from evalgap.research.dataset import Candidate, Dataset, Task, code_digest, load_dataset, save_dataset
from evalgap.research.diffspec import differential_spec, write_differential
from evalgap.research.errors import DatasetError
from evalgap.research.evaluators import EvalSettings, evaluate
from evalgap.research.oracle import same_result
from evalgap.research.summary import render_markdown, summarize
from evalgap.research.verdicts import CandidateResult, EvalVerdict
from evalgap.specs_lang import check_structure, parse
from evalgap.verifier.findings import Verdict
from egtest import run_cli

# A small self-made task: the largest element of a non-empty list (reference raises on []).
REF = "def largest(l: list[int]) -> int:\n    return max(l)\n"
TESTS = "def check(candidate):\n    assert candidate([1, 3, 2]) == 3\n    assert candidate([5]) == 5\n"
TASK = Task("toy/largest", "largest", "Return the largest element of a non-empty list.", prompt=REF,
            reference=REF, tests=TESTS, ground_truth_inputs=json.dumps([[[1, 3, 2]], [[-4, -2]], [[7]], [[]]]),
            contract="assert isinstance(l, list)", param_types=(("l", "list[int]"),))
RIGHT_MUTATING = "def largest(l):\n    l.sort()\n    return l[-1]\n"           # right; mutates its argument
RIGHT_EMPTY_OK = "def largest(l):\n    return max(l) if l else 0\n"            # differs only where ref raises
WRONG = "def largest(l):\n    return l[0] if len(l) < 3 else max(l)\n"        # passes TESTS, wrong on [-4, -2]
SETTINGS = EvalSettings(crosshair_budget_s=2.0, hypothesis_seeds=(0,), hypothesis_examples=60)


def _cand(cid: str, code: str) -> Candidate:
    return Candidate(cid, TASK.task_id, "toy", code)


def test_dataset_jsonl_round_trip_and_errors(tmp_path: Path) -> None:
    ds = Dataset("toy", (TASK,), (_cand("a", WRONG), _cand("b", RIGHT_MUTATING)))
    save_dataset(ds, tmp_path / "toy.jsonl")
    back = load_dataset(tmp_path / "toy.jsonl")
    assert back.tasks == (TASK,) and back.candidates == ds.candidates
    assert back.task("toy/largest").inputs()[1] == [[-4, -2]]
    (tmp_path / "bad.jsonl").write_text('{"kind": "candidate", "candidate_id": "x", "task_id": "nope", '
                                        '"source": "s", "code": ""}\n')
    with pytest.raises(DatasetError, match="unknown task 'nope'"):
        load_dataset(tmp_path / "bad.jsonl")
    assert code_digest("def f():\n    return 1   \n") == code_digest("def f():\n    return 1\n")


def test_same_result_uses_tolerance_only_for_floats() -> None:
    assert same_result(0.1 + 0.2, 0.3) and not same_result(0.31, 0.3)
    assert same_result(1.00005, 1.0, atol=1e-4) and not same_result(1.001, 1.0, atol=1e-4)
    assert same_result([1.0, (2, "a")], [1.0, (2, "a")]) and not same_result([1, 2], (1, 2))
    inf = float("inf")
    assert same_result(inf, inf) and same_result([-inf], [-inf]) and not same_result(inf, -inf)
    assert not same_result(inf, 1e308) and same_result(float("nan"), float("nan"))
    assert same_result(float("nan"), float("nan")) and not same_result(3, 4)


def test_differential_spec_parses_and_renames_spec_words(tmp_path: Path) -> None:
    text, names = differential_spec(TASK)
    check_structure(parse(text))
    assert "requires _eg_pre(l)" in text and "ensures _eg_same(result, l)" in text
    t2 = Task("toy/x", "f", "p", reference="def f(result, spec):\n    return 1\n",
              param_types=(("result", "int"), ("spec", "int")))
    text2, names2 = differential_spec(t2)
    assert names2 == ["result_", "spec_"]
    check_structure(parse(text2))
    ds = write_differential(TASK, RIGHT_MUTATING, tmp_path)
    support = (tmp_path / "eg_diff.py").read_text()
    assert "copy.deepcopy(l)" in support and ds.module == "eg_diff"


def test_tests_and_ground_truth_evaluators_on_toy_task() -> None:
    wrong, right = _cand("w", WRONG), _cand("r", RIGHT_MUTATING)
    assert evaluate("tests", TASK, wrong, SETTINGS).verdict is Verdict.NO_COUNTEREXAMPLE
    gt = evaluate("ground-truth", TASK, wrong, SETTINGS)
    assert gt.verdict is Verdict.REFUTED and gt.counterexample == "largest([-4, -2])"
    ok = evaluate("ground-truth", TASK, right, SETTINGS)
    # the reference raises on [] (outside the domain): 3 inputs run, 1 skipped
    assert ok.verdict is Verdict.NO_COUNTEREXAMPLE and dict(ok.detail)["inputs_run"] == 3
    assert dict(ok.detail)["inputs_skipped"] == 1 and ok.cpu_s > 0


def test_hypothesis_evaluator_records_seeds_and_refutes() -> None:
    v = evaluate("hypothesis", TASK, _cand("w", WRONG), SETTINGS)
    assert v.verdict is Verdict.REFUTED and v.counterexample and v.counterexample.startswith("largest([")
    d = dict(v.detail)
    assert d["seeds"] == [0] and d["constant_mining"] == "off" and d["hypothesis_version"]
    ok = evaluate("hypothesis", TASK, _cand("e", RIGHT_EMPTY_OK), SETTINGS)
    assert ok.verdict is Verdict.NO_COUNTEREXAMPLE, ok.reason


@pytest.mark.slow
def test_crosshair_differential_copies_inputs_and_respects_reference_domain() -> None:
    wrong = evaluate("crosshair", TASK, _cand("w", WRONG), SETTINGS)
    assert wrong.verdict is Verdict.REFUTED, wrong.reason
    assert "replayed concretely" in wrong.reason
    # mutating its argument must not change the reference's view; [] (reference raises) is outside the domain
    for code in (RIGHT_MUTATING, RIGHT_EMPTY_OK):
        v = evaluate("crosshair", TASK, _cand("r", code), SETTINGS)
        assert v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE), v.reason
        assert dict(v.detail)["budget_s"] == 2.0


def _cr(cid: str, digest: str, **outs: Verdict) -> CandidateResult:
    return CandidateResult(cid, "T", "m", None, digest,
                           tuple(EvalVerdict(k.replace("_", "-"), v, "r", cpu_s=1.0) for k, v in outs.items()))


def test_summary_figures() -> None:
    A, R, U = Verdict.NO_COUNTEREXAMPLE, Verdict.REFUTED, Verdict.UNKNOWN
    rs = [
        _cr("gap1", "d1", ground_truth=R, tests=A, crosshair=R),
        _cr("gap2", "d2", ground_truth=R, tests=A, crosshair=U),
        _cr("ok1", "d3", ground_truth=A, tests=A, crosshair=R),   # a false refutation
        _cr("ok2", "d4", ground_truth=A, tests=A, crosshair=A),
        _cr("bad", "d5", ground_truth=R, tests=R, crosshair=R),
    ]
    rs.append(CandidateResult("gap1b", "T", "m", None, "d1", rs[0].verdicts, duplicate_of="gap1"))
    s = summarize(rs)
    assert s.gap["count"] == 2 and s.gap["candidates"] == 3
    assert s.recall["crosshair"] == {"rejected": 1, "outside_domain": 0, "unknown": 1, "accepted": 0, "recall": 0.5,
                                     "interval": [0.0945, 0.9055]}
    assert [f["candidate_id"] for f in s.false_refutations["crosshair"]] == ["ok1"]
    assert s.accept["tests"]["accept"] == 5 and s.accept["ground-truth"]["accept"] == 2
    assert s.pass_rate_drop == round(1 - 2 / 5, 4)
    assert s.agreement["tests"]["ground-truth"] == 0.6 and s.agreement["crosshair"]["crosshair"] == 1.0
    md = render_markdown(s)
    assert "**2 distinct programs** (3 candidates)" in md and "ok1" in md


def test_compare_dedupes_and_resumes(tmp_path: Path) -> None:
    ds = Dataset("toy", (TASK,), (_cand("w1", WRONG), _cand("w2", WRONG + "\n"), _cand("r", RIGHT_MUTATING)))
    opts = CompareOptions(("tests",), SETTINGS)
    res = compare(ds, tmp_path, opts)
    assert [r.duplicate_of for r in res] == [None, "w1", None]
    assert [getattr(r.verdict("ground-truth"), "verdict", None) for r in res] == \
        [Verdict.REFUTED] * 2 + [Verdict.NO_COUNTEREXAMPLE]
    lines = (tmp_path / PROGRESS).read_text().splitlines()
    assert len(lines) == 2
    # a run killed after one program: the second run evaluates only the missing one
    (tmp_path / PROGRESS).write_text(lines[0] + "\n" + lines[1][:20])
    seen: list[tuple[int, int]] = []
    compare(ds, tmp_path, opts, lambda d, t: seen.append((d, t)))
    assert seen[0] == (1, 2) and seen[-1] == (2, 2)
    assert len((tmp_path / "candidates.jsonl").read_text().splitlines()) == 3
    # report-only on a partial progress file reports the finished programs and runs nothing
    (tmp_path / PROGRESS).write_text(lines[0] + "\n")
    part = compare(ds, tmp_path, CompareOptions(("tests",), SETTINGS, report_only=True))
    assert [r.candidate_id for r in part] == ["w1", "w2"]
    assert len((tmp_path / PROGRESS).read_text().splitlines()) == 1


def test_cli_compare_on_jsonl(tmp_path: Path) -> None:
    ds = Dataset("toy", (TASK,), (_cand("w", WRONG), _cand("r", RIGHT_MUTATING)))
    save_dataset(ds, tmp_path / "toy.jsonl")
    r = run_cli("compare", str(tmp_path / "toy.jsonl"), "--evaluators", "tests", "-o", str(tmp_path / "out"),
                "--no-plots")
    assert r.exit_code == 1, r.stderr  # one program passes the tests but is wrong
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["gap"]["count"] == 1 and summary["gap"]["programs"][0]["candidate_id"] == "w"
    # the last line: what this run evaluated, per minute, with the CPU of every process (the sandboxed jobs'
    # too: two programs, each running the tests and the ground truth in workers, cannot take under 0.05 s)
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("2 programs evaluated in ") and " per minute (-j 1); CPU " in last, last
    cpu = float(last.split("; CPU ")[1].split(" s")[0])
    assert cpu >= 0.05, last
    again = run_cli("compare", str(tmp_path / "toy.jsonl"), "--evaluators", "tests", "-o", str(tmp_path / "out"),
                    "--no-plots")
    assert again.stdout.strip().splitlines()[-1] == "no program evaluated by this run (all resumed from the progress file)"
    bad = run_cli("compare", "nosuch:adapter", "-o", str(tmp_path / "o2"))
    assert bad.exit_code == 2 and "unknown adapter" in bad.stderr


def test_throughput_line_says_rate_cpu_and_core_use() -> None:
    from evalgap.research.cli import throughput_line

    assert throughput_line(40, 120.0, 230.0, 2) == ("40 programs evaluated in 120 s: 20.0 per minute (-j 2); CPU 230 s, "
                                                   "5.8 s a program, 96 % of 2 cores")
    assert throughput_line(3, 60.0, None, 1).endswith("(CPU not measured: Ray workers)")


def test_humaneval_adapter(shared_data: Path) -> None:
    from evalgap.research.humaneval import build_dataset

    ds = build_dataset("humaneval-all", shared_data, ["HumanEval/0", "HumanEval/32"])
    t0 = ds.task("HumanEval/0")
    assert t0.param_types == (("numbers", "List[float]"), ("threshold", "float"))
    assert "assert isinstance(threshold, float) and threshold > 0" in t0.contract and "$_CONTRACT_$" not in t0.contract
    assert len(t0.inputs()) > 100 and t0.atol == 0.0 and ds.task("HumanEval/32").atol == 1e-4
    runs = sorted(c.run or 0 for c in ds.candidates if c.source == "gpt-3.5-turbo" and c.task_id == "HumanEval/0")
    assert runs == list(range(1, 11))
    buggy = next(c for c in ds.candidates if c.candidate_id == "HumanEval/0#buggy")
    assert "def check(" not in buggy.code and "def has_close_elements" in buggy.code


@pytest.mark.slow
def test_cli_compare_humanevalfix(shared_data: Path, tmp_path: Path) -> None:
    r = run_cli("compare", f"humanevalfix:{shared_data}", "--tasks", "HumanEval/0", "--evaluators",
                "tests,crosshair", "--budget", "2", "-o", str(tmp_path), "--no-plots")
    assert r.exit_code == 0, r.stderr
    rows = {json.loads(x)["candidate_id"]: json.loads(x) for x in (tmp_path / "candidates.jsonl").read_text().splitlines()}
    verdict = {cid: {v["evaluator"]: v["verdict"] for v in row["verdicts"]} for cid, row in rows.items()}
    assert verdict["HumanEval/0#buggy"] == {"ground-truth": "refuted", "tests": "refuted", "crosshair": "refuted"}
    assert verdict["HumanEval/0#fixed"]["crosshair"] in ("verified", "no-counterexample")


@pytest.mark.slow
def test_ray_executor_gives_the_same_verdicts_as_local(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'evalgap[research]')")
    ds = Dataset("toy", (TASK,), (_cand("w", WRONG), _cand("r", RIGHT_MUTATING)))
    local = compare(ds, tmp_path / "local", CompareOptions(("tests", "hypothesis"), SETTINGS))
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = compare(ds, tmp_path / "ray", CompareOptions(("tests", "hypothesis"), SETTINGS, executor="ray"))
    finally:
        ray.shutdown()
    def key(rs: list[CandidateResult]) -> list[tuple[str, str, str, str | None]]:
        return [(r.candidate_id, v.evaluator, v.verdict.value, v.counterexample) for r in rs for v in r.verdicts]
    assert key(on_ray) == key(local)
    assert [v.verdict for v in on_ray[0].verdicts] == [Verdict.REFUTED, Verdict.NO_COUNTEREXAMPLE, Verdict.REFUTED]


NAGINI = '''from typing import List
from nagini_contracts.contracts import *

@Pure
def psum(i : int, j : int, s : List[int]) -> int :
    Requires(Acc(list_pred(s)))
    Requires(0 <= i and i <= j and j <= len(s))
    if i == j:
        return 0
    else:
        return (s)[j - 1] + (psum(i, j - 1, s))

def mono(xs : List[int], k : int) -> bool:
    Requires(Acc(list_pred(xs)))
    Requires((len(xs)) > (0))
    Ensures(Acc(list_pred(xs)))
    Ensures(Implies(Result(), Forall(int, lambda i: Forall(int, lambda j:
        not ((((0) <= (i)) and ((i) < (j))) and ((j) < (len(xs)))) or (((xs)[i]) <= ((xs)[j]))))))
    Ensures(Implies(not Result(), Exists(int, lambda i: ((0 <= i) and (i < len(xs) - 1)) and xs[i] > xs[i + 1])))
    Ensures(psum(0, len(xs), xs) == psum(0, len(xs), xs) + k - k)
    return True
'''


def test_nagini_import_translates_quantifiers_helpers_and_names() -> None:
    from evalgap.research.import_nagini import NaginiImportError, import_nagini

    imp = import_nagini(NAGINI, "HumanEval/57", "monotonic", (("l", "list[int]"), ("n", "int")))
    assert imp.requires == 1 and imp.ensures == 3
    text = imp.spec_text
    assert "requires len(l) > 0" in text
    assert "ensures (result ==> (forall i in range(0, len(l)): (forall j in range(i + 1, len(l)): " \
           "not ((0 <= i and i < j) and j < len(l)) or l[i] <= l[j])))" in text
    assert "(exists i in range(0, len(l) - 1): (0 <= i and i < len(l) - 1) and l[i] > l[i + 1])" in text
    assert "Acc" not in text and "Result" not in text.split("\n", 3)[3].split('"')[-1]
    check_structure(parse(text))
    assert imp.helpers.startswith("def psum(") and "Requires" not in imp.helpers
    with pytest.raises(NaginiImportError, match="Old"):
        import_nagini(NAGINI.replace("psum(0, len(xs), xs) + k", "Old(k)"), "HumanEval/57", "monotonic",
                      (("l", "list[int]"), ("n", "int")))


def test_nagini_folder_import_on_shared_data(shared_data: Path, tmp_path: Path) -> None:
    r = run_cli("import", "nagini", str(shared_data / "humaneval-nagini" / "Bench"), "--data", str(shared_data),
                "-o", str(tmp_path))
    assert r.exit_code == 1  # some programs cannot be imported; each one is listed with its reason
    report = (tmp_path / "IMPORT_REPORT.md").read_text()
    assert "67 imported, 39 not imported." in report and "no guard bounding it" in report
    # HumanEval-Nagini's List[int] character codes for a str parameter: a spec that would be wrong is not written
    assert ("011-string_xor.py: Nagini's string__xor types parameter a as List[int] where HumanEval's string_xor "
            "takes a: str, and the clauses do not fit there: EG216 comparing str to int is always False") in report
    assert "161-solve.py" in report and "helpers written for integer codes: is__alpha, flip__case" in report
    assert not (tmp_path / "HumanEval_11.req").exists() and not (tmp_path / "HumanEval_161_helpers.py").exists()
    assert (tmp_path / "HumanEval_48.req").is_file()  # generic clauses over a retyped parameter are kept
    assert (tmp_path / "HumanEval_3.req").is_file() and (tmp_path / "HumanEval_3_helpers.py").is_file()


def test_every_shipped_nagini_import_passes_lint() -> None:
    specs = sorted((Path(__file__).parents[1] / "specs" / "humaneval" / "nagini").glob("HumanEval_*.req"))
    assert len(specs) == 67
    r = run_cli("lint", *map(str, specs))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.count(": ok") == len(specs)


PROP = '''spec toy_largest "largest"

function largest(l: list[int])
  requirement P-1 "The list is not empty."
    requires len(l) > 0
  requirement P-2 "Returns the largest element."
    ensures result in l and (forall x in l: x <= result)
'''


def test_spec_inputs_checks_a_property_spec_on_every_input() -> None:
    from dataclasses import replace

    task = replace(TASK, spec_text=PROP)
    bad = evaluate("spec-inputs", task, _cand("w", WRONG), SETTINGS)
    assert bad.verdict is Verdict.REFUTED and bad.counterexample == "largest([-4, -2])"
    assert bad.reason.startswith("P-2: postcondition false")
    ok = evaluate("spec-inputs", task, _cand("r", RIGHT_EMPTY_OK), SETTINGS)
    assert ok.verdict is Verdict.NO_COUNTEREXAMPLE, ok.reason
    assert dict(ok.detail)["inputs_skipped"] == 1  # [] is outside the precondition
    assert evaluate("spec-inputs", TASK, _cand("r", WRONG), SETTINGS).verdict is Verdict.NOT_FORMALIZED


def test_nl2postcond_import_on_shared_data(shared_data: Path, tmp_path: Path) -> None:
    from evalgap.research.humaneval import load_tasks
    from evalgap.research.import_nl2postcond import import_nl2postcond

    tasks = load_tasks(shared_data, ["HumanEval/0", "HumanEval/2"])
    imp = import_nl2postcond(shared_data / "nl2postcond" / "gpt4_simple_with_ref_postconditions.jsonl.gz",
                             {t: v.param_types for t, v in tasks.items()})
    assert set(imp.specs) == {"HumanEval/0", "HumanEval/2"}
    text = imp.specs["HumanEval/0"]
    assert "function has_close_elements(numbers: List[float], threshold: float)" in text
    assert "return_value" not in text and "ensures " in text
    check_structure(parse(text))
    n_req = text.count("requirement NL2P-0-")
    assert n_req + sum(1 for t, _, _ in imp.skipped if t == "HumanEval/0") == 10  # 10 responses per task


def test_tests_evaluator_sees_the_programs_own_helpers_as_humaneval_does() -> None:
    """HumanEval/32's tests call `poly`, a helper the program defines: HumanEval's own harness runs program and
    tests in one namespace, so the `tests` evaluator must accept the program."""
    tests = "def check(candidate):\n    assert poly([1, 2], 3) == 7\n    assert candidate([1, 2]) == 7\n"
    task = Task("toy/poly", "at3", "p", prompt=REF, reference="def at3(xs):\n    return poly(xs, 3)\n",
                tests=tests, ground_truth_inputs=json.dumps([[[1, 2]]]), param_types=(("xs", "list[int]"),))
    prog = "def poly(xs, x):\n    return sum(c * x ** i for i, c in enumerate(xs))\n\n" \
           "def at3(xs):\n    return poly(xs, 3)\n"
    got = evaluate("tests", task, Candidate("p", task.task_id, "toy", prog), SETTINGS)
    assert got.verdict is Verdict.NO_COUNTEREXAMPLE, got.reason
