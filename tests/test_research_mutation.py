"""The ``mutation`` evaluator of ``evalgap compare``: EvalPlus-style type-aware mutation of the visible inputs."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from evalgap.research.dataset import Candidate, Dataset, Task, save_dataset
from evalgap.research.domains import InputDomain
from evalgap.research.evaluators import EvalSettings, evaluate
from evalgap.research.input_mutation import InputMutator
from evalgap.research.unions import with_unions
from evalgap.research.verdicts import CandidateResult, EvalVerdict
from evalgap.verifier.findings import Verdict
from egtest import run_cli

REF = "def longest(words: list[str], k: int) -> str:\n    return max(words, key=len)[:k] if words else ''\n"
# visible inputs: short lists of short words and small k; every test the benchmark shows passes these
VISIBLE: list[list[Any]] = [[["ab", "abc"], 3], [["x"], 1], [["hello", "hi"], 5]]
TASK = Task("toy/longest", "longest", "The longest word, cut to k characters.", reference=REF,
            base_inputs=json.dumps(VISIBLE), contract="assert k >= 0",
            param_types=(("words", "list[str]"), ("k", "int")))
SETTINGS = EvalSettings(hypothesis_seeds=(0,), mutation_inputs=300, mutation_cpu_s=20.0)
# right on every visible input; wrong once a list has four words (an input only mutation reaches)
WRONG = ("def longest(words, k):\n    if len(words) > 3:\n        return words[0][:k]\n"
         "    return max(words, key=len)[:k] if words else ''\n")
# right everywhere, but slow (quadratic busy work) once k grows past the visible values
SLOW = ("def longest(words, k):\n    if k > 7:\n        x = 0\n        for i in range(10**9):\n            x += i\n"
        "    return max(words, key=len)[:k] if words else ''\n")
RIGHT = "def longest(words, k):\n    best = ''\n    for w in words:\n        if len(w) > len(best):\n" \
        "            best = w\n    return best[:k]\n"


def test_mutants_keep_each_arguments_type_and_grow_from_the_seeds() -> None:
    mut = InputMutator(VISIBLE, random.Random(7))
    pool = [list(a) for a in VISIBLE]
    lengths = set()
    for _ in range(400):
        child = mut.mutate(random.Random(len(pool)).choice(pool))
        if child is None:
            continue
        assert len(child) == 2 and isinstance(child[0], list) and type(child[1]) is int
        assert all(isinstance(w, str) for w in child[0]), child
        pool.append(child)
        mut.learn(child)
        lengths.add(len(child[0]))
    # lists grow and shrink beyond the seeds' lengths 1..2, and words come from the seeds' ingredients
    assert max(lengths) >= 4 and 0 in lengths
    assert any(w in ("ab", "abc", "x", "hello", "hi") for args in pool[3:] for w in args[0])


def test_mutation_is_reproducible_from_its_seed_and_does_not_modify_its_input() -> None:
    runs = []
    for _ in range(2):
        mut = InputMutator(VISIBLE, random.Random(3))
        seed = [["ab", "abc"], 3]
        runs.append([mut.mutate(seed) for _ in range(50)])
        assert seed == [["ab", "abc"], 3]
    assert runs[0] == runs[1]


def test_tuples_keep_their_length_and_oversized_mutants_are_dropped() -> None:
    mut = InputMutator([[(1, "a")]], random.Random(0))
    for _ in range(100):
        child = mut.mutate([(1, "a")])
        if child is not None:
            assert len(child[0]) == 2 and type(child[0][0]) is int and type(child[0][1]) is str
    tiny = InputMutator([[["abc"]]], random.Random(0), max_chars=12)
    assert all(m is None or len(repr(m)) <= 12 for m in (tiny.mutate([["abc"]]) for _ in range(100)))


def test_mutation_evaluator_refutes_a_bug_outside_the_visible_inputs() -> None:
    v = evaluate("mutation", TASK, Candidate("w", TASK.task_id, "toy", WRONG), SETTINGS)
    assert v.verdict is Verdict.REFUTED, v.reason
    assert v.counterexample and v.counterexample.startswith("longest([")
    args = v.counterexample[len("longest("):-1]
    assert args.count("'") >= 8  # four or more words: the list grew past the visible lengths
    assert dict(v.detail)["seeds"] == [0] and dict(v.detail)["inputs_per_seed"] == 300


def test_mutation_evaluator_accepts_a_right_program_and_times_out_a_slow_one() -> None:
    ok = evaluate("mutation", TASK, Candidate("r", TASK.task_id, "toy", RIGHT), SETTINGS)
    assert ok.verdict is Verdict.NO_COUNTEREXAMPLE, ok.reason
    assert "300 mutated inputs" in ok.reason
    slow = evaluate("mutation", TASK, Candidate("s", TASK.task_id, "toy", SLOW), SETTINGS)
    assert slow.verdict is Verdict.REFUTED and slow.reason.startswith("timeout"), slow.reason


def test_mutation_evaluator_needs_visible_inputs_and_a_reference() -> None:
    bare = Task("toy/x", "longest", "prose", reference=REF)
    v = evaluate("mutation", bare, Candidate("r", "toy/x", "toy", RIGHT), SETTINGS)
    assert v.verdict is Verdict.UNKNOWN and "no visible inputs" in v.reason
    outside = Task("toy/y", "longest", "prose", reference=REF, base_inputs=json.dumps([[["a"], -1]]),
                   contract="assert k >= 0", param_types=(("words", "list[str]"), ("k", "int")))
    v = evaluate("mutation", outside, Candidate("r", "toy/y", "toy", RIGHT), SETTINGS)
    assert v.verdict is Verdict.UNKNOWN and "no visible input satisfies the contract" in v.reason


# ------------------------------------------------------------------------------------- unions
def _res(cid: str, **verdicts: tuple[Verdict, str | None]) -> CandidateResult:
    return CandidateResult(cid, "toy/t", "toy", None, cid,
                           tuple(EvalVerdict(ev.replace("_", "-"), v, f"{ev} says so", 1.0, 2.0, cx)
                                 for ev, (v, cx) in verdicts.items()))


def test_a_union_rejects_when_any_member_rejects_inside_the_domain() -> None:
    domain = InputDomain(ascii_text=True, inputs=3)
    rs = [_res("a", crosshair=(Verdict.NO_COUNTEREXAMPLE, None), mutation=(Verdict.REFUTED, "f('x')")),
          _res("b", crosshair=(Verdict.REFUTED, "f('é')"), mutation=(Verdict.REFUTED, "f('y')")),
          _res("c", crosshair=(Verdict.REFUTED, "f('é')"), mutation=(Verdict.NO_COUNTEREXAMPLE, None)),
          _res("d", crosshair=(Verdict.UNKNOWN, None), mutation=(Verdict.NO_COUNTEREXAMPLE, None)),
          _res("e", crosshair=(Verdict.NO_COUNTEREXAMPLE, None), mutation=(Verdict.NO_COUNTEREXAMPLE, None))]
    out = {r.candidate_id: r.verdict("crosshair|mutation") for r in
           with_unions(rs, [("crosshair", "mutation")], {"toy/t": domain})}
    assert all(v is not None for v in out.values())
    a, b, c, d, e = (out[k] for k in "abcde")
    assert a is not None and a.verdict is Verdict.REFUTED and a.counterexample == "f('x')"
    # the inside-domain counterexample is kept over the first member's outside one
    assert b is not None and b.verdict is Verdict.REFUTED and b.counterexample == "f('y')" and b.reason.startswith("mutation")
    assert c is not None and c.verdict is Verdict.REFUTED and c.counterexample == "f('é')"  # counted apart
    assert d is not None and d.verdict is Verdict.UNKNOWN and "crosshair" in d.reason
    assert e is not None and e.verdict is Verdict.NO_COUNTEREXAMPLE and e.cpu_s == 2.0 and e.wall_s == 4.0


def test_a_union_needs_two_evaluators_that_were_run() -> None:
    rs = [_res("a", crosshair=(Verdict.NO_COUNTEREXAMPLE, None), mutation=(Verdict.REFUTED, "f(1)"))]
    with pytest.raises(ValueError, match="at least two"):
        with_unions(rs, [("crosshair",)])
    with pytest.raises(ValueError, match="hypothesis"):
        with_unions(rs, [("crosshair", "hypothesis")])


def test_cli_compare_reports_the_mutation_evaluator_and_a_union(tmp_path: Path) -> None:
    task = Task("toy/longest", "longest", "prose", reference=REF, base_inputs=json.dumps(VISIBLE),
                contract="assert k >= 0", param_types=(("words", "list[str]"), ("k", "int")),
                tests="def check(candidate):\n    assert candidate(['ab', 'abc'], 3) == 'abc'\n",
                ground_truth_inputs=json.dumps(VISIBLE + [[["a", "b", "c", "dddd"], 4], [["aa", "b", "c", "d"], 2]]))
    ds = Dataset("toy", (task,), (Candidate("w", task.task_id, "toy", WRONG), Candidate("r", task.task_id, "toy", RIGHT)))
    save_dataset(ds, tmp_path / "toy.jsonl")
    r = run_cli("compare", str(tmp_path / "toy.jsonl"), "--evaluators", "tests,mutation", "--union", "tests,mutation",
                "--seeds", "0", "--mutation-inputs", "200", "-o", str(tmp_path / "out"), "--no-plots")
    assert r.exit_code == 1, r.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["recall"]["mutation"]["rejected"] == 1 and summary["recall"]["tests|mutation"]["rejected"] == 1
    assert summary["false_refutation_rate"]["tests|mutation"]["rejected"] == 0
    bad = run_cli("compare", str(tmp_path / "toy.jsonl"), "--evaluators", "tests", "--union", "tests,crosshair",
                  "-o", str(tmp_path / "o2"))
    assert bad.exit_code == 2 and "not in --evaluators: crosshair" in bad.stderr
