"""Tests of the differential spec's input domain (issue 9's headline run): finite floats as an assumption,
bare ``list`` annotations narrowed from all HumanEval+ inputs, finite Hypothesis floats, and CrossHair
retries after a wall-clock kill (which stay ``unknown`` when every attempt is killed)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Union

import pytest

from evalgap.research import evaluators
from evalgap.research.dataset import Candidate, Task
from evalgap.research.diffspec import (FLOAT_BOUND, differential_spec, domain_narrowings, finite_condition,
                                       float_bound)
from evalgap.research.evaluators import EvalSettings, evaluate
from evalgap.research.humaneval import _param_types, infer_type_of_all
from evalgap.specs_lang import check_structure, parse
from evalgap.specs_lang.lower import applicable_assumptions
from evalgap.verifier.findings import Verdict


def test_infer_type_of_all_merges_every_input() -> None:
    assert infer_type_of_all([[1, 2], [], [3]]) == "list[int]"
    assert infer_type_of_all([[1, 2], [3.5]]) == "list[Union[float, int]]"   # the first input alone: list[int]
    assert infer_type_of_all([[[1], []], [[2, 3]]]) == "list[list[int]]"
    assert infer_type_of_all([[], []]) == "list" and infer_type_of_all([]) == "Any"
    assert infer_type_of_all([1, "a"]) == "Union[int, str]" and infer_type_of_all([True, None]) == "Union[None, bool]"


def test_infer_type_of_all_types_none_and_dicts() -> None:
    # None and dicts no longer make the type Any (HumanEval/22's values hold both)
    assert infer_type_of_all([[1, None, {"a": "b"}]]) == "list[Union[None, dict[str, str], int]]"
    assert infer_type_of_all([{"a": 1}, {"b": 2.5}, {}]) == "dict[str, Union[float, int]]"
    assert infer_type_of_all([{}, {}]) == "dict"
    assert infer_type_of_all([[{"k": [1, "x"]}]]) == "list[dict[str, list[Union[int, str]]]]"
    assert infer_type_of_all([object()]) == "Any"


def test_param_types_narrow_any_annotations_from_all_inputs() -> None:
    """`Any` keeps every scalar kind (None, bool, int, float, str) beside the kinds the inputs show: the
    visible inputs alone must not decide that bools (or floats) are outside "any value"."""
    prompt = "from typing import Any, List\ndef f(v: List[Any], a: Any, w: List[int], z: Any):\n    pass\n"
    inputs: list[list[Any]] = [[[1, None], 2, [3], object()], [[{"k": 1.5}], "s", [], object()]]
    assert _param_types(prompt, "f", inputs) == (
        ("v", "list[Union[None, bool, dict[str, float], float, int, str]]"),
        ("a", "Union[None, bool, float, int, str]"), ("w", "List[int]"),
        ("z", "Any"))   # nothing narrower than Any is known for z: the annotation stays


def test_param_types_narrow_bare_list_from_all_inputs() -> None:
    prompt = "def f(l: list, m: List[int], k, s: str):\n    pass\n"
    inputs: list[list[Any]] = [[[1, 2], [1], 3, "a"], [[], [2], 4, "b"], [[True, 5], [], 5, "c"], [7, [], 6, "d"]]
    # a non-list value (outside the contract) does not widen a bare `list`; an unannotated parameter uses all
    assert _param_types(prompt, "f", inputs) == (("l", "list[Union[bool, int]]"), ("m", "List[int]"),
                                                 ("k", "int"), ("s", "str"))
    assert _param_types(prompt, "f", [[[], [], 1, "a"]])[0] == ("l", "list")   # nothing to infer from
    assert _param_types("def g(x):\n    pass\n", "g", None) == (("x", "Any"),)


def test_finite_condition_covers_floats_in_containers_and_unions() -> None:
    assert finite_condition("x", "float") == "math.isfinite(x)"
    assert finite_condition("l", "List[float]") == "forall v0 in l: math.isfinite(v0)"
    assert finite_condition("l", "list[Union[float, int]]") == \
        "forall v0 in l: (not isinstance(v0, float) or (math.isfinite(v0)))"
    assert finite_condition("p", "Tuple[float, int]") == "(math.isfinite(p[0]))"
    assert finite_condition("g", "Union[list[float], str]") == \
        "(not isinstance(g, list) or (forall v0 in g: math.isfinite(v0)))"
    for text in ("int", "list[int]", "str", "Dict[str, int]", "list"):
        assert finite_condition("x", text) is None


def test_finite_condition_with_a_magnitude_bound_and_dict_values() -> None:
    assert finite_condition("x", "float", 1e150) == "abs(x) <= 1e+150"   # false for inf and NaN too
    assert finite_condition("l", "List[float]", 1e150) == "forall v0 in l: abs(v0) <= 1e+150"
    assert finite_condition("d", "dict[str, float]") == "forall v0 in d.values(): math.isfinite(v0)"
    assert finite_condition("v", "list[Union[None, dict[str, float], float]]", 1.0) == \
        "forall v0 in v: (not isinstance(v0, dict) or (forall v1 in v0.values(): abs(v1) <= 1.0)) and " \
        "(not isinstance(v0, float) or (abs(v0) <= 1.0))"


def _floats_task(largest: float) -> Task:
    ref = "def far(a: float, b: float) -> bool:\n    return a * a < float('inf')\n"
    return Task("toy/far", "far", "True.", prompt=ref, reference=ref,
                ground_truth_inputs=json.dumps([[1.0, 2.0], [largest, 0.5]]), param_types=(("a", "float"),
                                                                                             ("b", "float")),
                base_inputs=json.dumps([[1.0, 2.0], [largest, 0.5]]))


def test_float_bound_is_1e150_unless_humaneval_plus_draws_larger() -> None:
    small, large = _floats_task(1e5), _floats_task(1e308)
    assert float_bound(small) == FLOAT_BOUND == 1e150 and float_bound(large) is None
    text = differential_spec(small)[0]
    assert "abs(a) <= 1e+150" in text and "magnitude at most 1e+150" in text
    spec = parse(text)
    check_structure(spec)
    assert [a.id for a in spec.assumptions] == ["FINITE_a", "FINITE_b"]
    assert "math.isfinite(a)" in differential_spec(large)[0] and "abs(a)" not in differential_spec(large)[0]
    assert domain_narrowings(small) == ("`a`: finite floats of magnitude at most 1e+150",
                                        "`b`: finite floats of magnitude at most 1e+150")
    assert "no magnitude bound" in domain_narrowings(large)[0]
    # a large float among the oracle's inputs only (not the visible ones) does not lift the bound
    from dataclasses import replace
    assert float_bound(replace(large, base_inputs=json.dumps([[1.0, 2.0]]))) == FLOAT_BOUND


def test_domain_narrowings_list_inferred_types() -> None:
    prompt = "from typing import Any, List\ndef f(v: List[Any], n):\n    pass\n"
    task = Task("toy/f", "f", "p", prompt=prompt, param_types=(("v", "list[Union[None, int]]"), ("n", "int")))
    assert domain_narrowings(task) == ("`v: List[Any]` typed `list[Union[None, int]]` from the benchmark's inputs",
                                       "`n` (no annotation) typed `int` from the benchmark's inputs")


# `a * a` overflows to inf only for |a| beyond the bound: a difference of float range, not of logic
_ALWAYS_FAR = Candidate("c", "toy/far", "toy", "def far(a, b):\n    return True\n")


def test_hypothesis_respects_the_float_bound() -> None:
    s = EvalSettings(hypothesis_seeds=(0,), hypothesis_examples=300)
    v = evaluate("hypothesis", _floats_task(1e5), _ALWAYS_FAR, s)
    assert v.verdict is Verdict.NO_COUNTEREXAMPLE, v.reason
    v = evaluate("hypothesis", _floats_task(1e308), _ALWAYS_FAR, s)   # no bound: the overflow is reachable
    assert v.verdict is Verdict.REFUTED and v.counterexample and "e+" in v.counterexample, v
    assert abs(float(v.counterexample[4:].split(",")[0])) > 1e154


def test_differential_spec_assumes_finite_floats() -> None:
    task = Task("toy/mean", "mean", "p", reference="def mean(xs, k):\n    return sum(xs) / k\n",
                param_types=(("xs", "List[float]"), ("k", "int")))
    text, _ = differential_spec(task)
    spec = parse(text)
    check_structure(spec)
    (a,) = spec.assumptions
    assert a.id == "FINITE_xs" and "finite floats" in a.prose and "abs(v0) <= 1e+150" in text   # no inputs: bound
    assert applicable_assumptions(spec, ["xs", "k"]) == [a]   # a precondition of `mean`, listed as assumption
    ints = Task("toy/i", "f", "p", reference="def f(n):\n    return n\n", param_types=(("n", "int"),))
    assert "assume" not in differential_spec(ints)[0]


# differs from the reference only on NaN: outside the domain once floats are assumed finite
_NAN_REF = "def same(x: float) -> bool:\n    return x == x\n"
_NAN_TASK = Task("toy/same", "same", "True.", prompt=_NAN_REF, reference=_NAN_REF, tests="",
                 ground_truth_inputs="[[1.0], [2.5]]", param_types=(("x", "float"),))
_ALWAYS = Candidate("c", "toy/same", "toy", "def same(x):\n    return True\n")


def test_hypothesis_draws_finite_floats_only() -> None:
    v = evaluate("hypothesis", _NAN_TASK, _ALWAYS, EvalSettings(hypothesis_seeds=(0, 1), hypothesis_examples=200))
    assert v.verdict is Verdict.NO_COUNTEREXAMPLE, v.reason
    from hypothesis import strategies as st

    from evalgap.research.eval_worker import _strategy

    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=100, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_strategy(list[Union[float, int]], st))   # floats inside unions and lists too
    def finite(xs: list[float]) -> None:
        assert all(math.isfinite(x) for x in xs)

    finite()


@pytest.mark.slow
def test_crosshair_does_not_refute_on_nan_only_difference() -> None:
    v = evaluate("crosshair", _NAN_TASK, _ALWAYS, EvalSettings(crosshair_budget_s=2.0))
    assert v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE), v.reason
    # CPU seconds include the forked CrossHair worker's (was 0.0: RUSAGE_CHILDREN does not see it)
    assert v.cpu_s >= 0.5 * (dict(v.detail)["crosshair_cpu_s"] or 0) > 0
    wrong = Candidate("w", "toy/same", "toy", "def same(x):\n    return x < 1e9\n")   # wrong on a finite float
    assert evaluate("crosshair", _NAN_TASK, wrong, EvalSettings(crosshair_budget_s=2.0)).verdict is Verdict.REFUTED


def _fake_results(verdict: Verdict, reason: str) -> list[Any]:
    ev = SimpleNamespace(engine="crosshair", reason=reason, counterexample=None,
                         budget=SimpleNamespace(paths=0, used_s=1.0))
    return [SimpleNamespace(role="postcondition", verdict=verdict, id="DIFF", verdicts=(ev,))]


def test_crosshair_retries_after_wall_clock_kill_and_stays_unknown(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    import evalgap.verifier.engines.run as engine

    killed = "timeout: the worker exceeded its wall-clock limit (40 s) and was killed"
    calls: list[int] = []

    def then_refuted(*a: Any, **k: Any) -> list[Any]:
        calls.append(1)
        return _fake_results(Verdict.UNKNOWN, killed) if len(calls) == 1 else \
            _fake_results(Verdict.REFUTED, "postcondition false")

    monkeypatch.setattr(engine, "check_spec", then_refuted)
    v = evaluate("crosshair", _NAN_TASK, _ALWAYS, EvalSettings(crosshair_budget_s=1.0))
    assert v.verdict is Verdict.REFUTED and dict(v.detail)["attempts"] == 2 and len(calls) == 2
    assert v.cpu_s >= 1.0  # the CrossHair workers' own CPU seconds (forked by a server: not in RUSAGE_CHILDREN)

    calls.clear()
    def always_killed(*a: Any, **k: Any) -> Any:
        calls.append(1)
        return _fake_results(Verdict.UNKNOWN, killed)

    monkeypatch.setattr(engine, "check_spec", always_killed)
    v = evaluate("crosshair", _NAN_TASK, _ALWAYS, EvalSettings(crosshair_budget_s=1.0))
    assert v.verdict is Verdict.UNKNOWN and "wall-clock" in v.reason
    assert len(calls) == 1 + evaluators.WALL_RETRIES

    calls.clear()   # a CPU-budget outcome is never retried
    def out_of_cpu(*a: Any, **k: Any) -> Any:
        calls.append(1)
        return _fake_results(Verdict.UNKNOWN, "budget exhausted: no execution path completed within 1 s")

    monkeypatch.setattr(engine, "check_spec", out_of_cpu)
    assert evaluate("crosshair", _NAN_TASK, _ALWAYS, EvalSettings(crosshair_budget_s=1.0)).verdict \
        is Verdict.UNKNOWN and len(calls) == 1


def _bench(name: str) -> Any:
    import importlib.util
    import sys

    root = Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location(name, root / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_nl2postcond_benchmark_helpers() -> None:
    nl2p = _bench("nl2postcond_humaneval")
    tests = ("def check(candidate):\n    assert candidate([1, 2], 3) == 1\n    assert candidate([1, 2], 3) == 1\n"
             "    for x in range(3):\n        assert candidate([x], x)\n    assert candidate(*[[], 0]) is None\n")
    assert nl2p.test_inputs(tests) == [[[1, 2], 3]]   # literal calls only, deduplicated
    spec = ('spec s "t"\n\nfunction f(l: list, n: int)\n  requirement A-1 "r1"\n    ensures result >= 0\n'
            '  requirement A-2 "r2"\n    ensures result < n\n    ensures result != 3\n')
    head, blocks = nl2p.split_requirements(spec)
    assert head.endswith("function f(l: list, n: int)\n") and list(blocks) == ["A-1", "A-2"]
    assert blocks["A-2"].count("ensures") == 2
    check_structure(parse(head + blocks["A-2"]))  # the split-off block is a spec on its own (raises if not)
    assert nl2p._failing_req("A-2: postcondition false: x", ["A-1", "A-2"]) == "A-2"
    assert nl2p._failing_req("spec error on 2 input(s): A-1: TypeError: x", ["A-1"]) == "A-1"
    assert nl2p._failing_req("engine error: worker died", ["A-1"]) is None


_FILTER = ("from typing import Any, List\n\ndef filter_integers(values: List[Any]) -> List[int]:\n"
           "    return [x for x in values if type(x) == int]\n")


def test_crosshair_refutes_a_list_of_any_with_a_rebuildable_counterexample() -> None:
    """HumanEval/22's shape: with ``List[Any]`` CrossHair picked a ``signal.Signals`` member (an int subclass
    that cannot be rebuilt, so the verdict was ``unknown``); typed from the inputs it refutes, replayed."""
    inputs: list[list[Any]] = [[[1, "a", None, 2.5, True, [1], {"k": 1}]], [[]]]
    task = Task("toy/filter", "filter_integers", "p", prompt=_FILTER, reference=_FILTER,
                ground_truth_inputs=json.dumps(inputs), contract="assert type(values) == list",
                param_types=_param_types(_FILTER, "filter_integers", inputs))
    assert "Any" not in task.param_types[0][1]
    keeps_bools = Candidate("k", "toy/filter", "toy", "def filter_integers(values):\n"
                            "    return [x for x in values if isinstance(x, int)]\n")
    v = evaluate("crosshair", task, keeps_bools, EvalSettings(crosshair_budget_s=3.0))
    assert v.verdict is Verdict.REFUTED and "replayed concretely" in v.reason, v.reason
    assert v.counterexample is not None and ("True" in v.counterexample or "False" in v.counterexample)


def test_humaneval_22_is_typed_without_any(shared_data: Path) -> None:
    from evalgap.research.humaneval import load_tasks

    task = load_tasks(shared_data, ["HumanEval/22"])["HumanEval/22"]
    (name, text), = task.param_types
    assert name == "values" and text.startswith("list[Union[None, bool, dict, ") and "Any" not in text
    assert domain_narrowings(task)[0].startswith("`values: List[Any]` typed `list[Union[None, bool,")
    # typed from the visible inputs plus every scalar kind (the prompt says "any value"), never the oracle's
    oracle = load_tasks(shared_data, ["HumanEval/22"], oracle_inputs=True)["HumanEval/22"]
    assert oracle.param_types != task.param_types and "dict[str, " in oracle.param_types[0][1]


def test_humaneval_22_run_1_refuted_by_crosshair(shared_data: Path) -> None:
    """The headline's 43rd program: ``unknown`` with ``List[Any]`` (an unrebuildable ``signal.Signals``),
    refuted once ``values`` is typed from HumanEval+'s inputs (it keeps bools; the reference does not)."""
    from evalgap.research.humaneval import build_dataset

    ds = build_dataset("llm-runs", shared_data, ["HumanEval/22"])
    cand = next(c for c in ds.candidates if c.run == 1)
    v = evaluate("crosshair", ds.task("HumanEval/22"), cand, EvalSettings(crosshair_budget_s=3.0))
    assert v.verdict is Verdict.REFUTED and "replayed concretely" in v.reason, v.reason
    assert v.counterexample is not None and "Signals" not in v.counterexample


def test_headline_lists_narrowings_of_selected_tasks_only() -> None:
    from evalgap.research.dataset import Dataset

    head = _bench("headline_humaneval")
    small, other = _floats_task(1e5), Task("toy/g", "g", "p", prompt="def g(n):\n    pass\n",
                                           param_types=(("n", "int"),))
    ds = Dataset("d", (small, other), (_ALWAYS_FAR,), "")
    assert head.narrowings(ds) == ["* toy/far: `a`: finite floats of magnitude at most 1e+150; "
                                   "`b`: finite floats of magnitude at most 1e+150"]
