"""The ``mutation`` evaluator of ``evalgap compare``: EvalPlus-style type-aware mutation of the visible inputs."""

from __future__ import annotations

import json
import random
from typing import Any

from evalgap.research.dataset import Candidate, Task
from evalgap.research.evaluators import EvalSettings, evaluate
from evalgap.research.input_mutation import InputMutator
from evalgap.verifier.findings import Verdict

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
