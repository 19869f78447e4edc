"""Hypothesis beside CrossHair: constructive strategies, assume() filtering, derandomized runs, shrunk and
replayed counterexamples, and disagreement between engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_hypothesis import strategy_source
from evalgap.verifier.findings import Verdict


def T(name: str, *args: A.TypeRef) -> A.TypeRef:
    return A.TypeRef(name, tuple(args))


@pytest.mark.parametrize("t, src", [
    (T("int"), "st.integers()"),
    (T("list", T("int")), "st.lists(st.integers())"),
    (T("dict", T("str"), T("bytes")), "st.dictionaries(st.text(), st.binary())"),
    (T("set", T("bool")), "st.sets(st.booleans())"),
    (T("tuple", T("int"), T("float")), "st.tuples(st.integers(), st.floats())"),
    (T("Optional", T("str")), "st.one_of(st.none(), st.text())"),
    (T("List", T("Tuple", T("int"), T("str"))), "st.lists(st.tuples(st.integers(), st.text()))"),
])
def test_strategy_source(t: A.TypeRef, src: str) -> None:
    assert strategy_source(t) == src


def test_unknown_type_is_unsupported() -> None:
    with pytest.raises(UnsupportedConstruct, match="Account"):
        strategy_source(T("list", T("Account")))


BUGGY = """
def f(n: int) -> int:
    return n + 1 if n > 100 else n
"""


def test_hypothesis_refutes_with_shrunk_replayed_counterexample(tmp_path: Path) -> None:
    spec = write_case(tmp_path, BUGGY)
    [r] = run_check(spec, budget_s=2.0, engines=("hypothesis",), hypothesis_examples=100)
    [v] = r.verdicts
    assert v.engine == "hypothesis" and v.verdict is Verdict.REFUTED
    assert v.counterexample == "f(101)"  # shrunk to the boundary
    assert "replayed concretely" in v.reason
    assert v.reproducer is not None and "n, = [101]" in v.reproducer


def test_derandomized_runs_agree_and_seed_is_recorded(tmp_path: Path) -> None:
    spec = write_case(tmp_path, "def f(n: int) -> int:\n    return n\n")
    a = run_check(spec, engines=("hypothesis",), hypothesis_examples=30)[0].verdicts[0]
    b = run_check(spec, engines=("hypothesis",), hypothesis_examples=30)[0].verdicts[0]
    assert a.verdict is b.verdict is Verdict.NO_COUNTEREXAMPLE
    assert a.budget.examples == b.budget.examples == 30 and "derandomized" in a.reason
    assert "not a proof" in a.reason
    c = run_check(spec, engines=("hypothesis",), hypothesis_examples=30, seed=1234)[0].verdicts[0]
    assert c.budget.seed == 1234 and "seed 1234" in c.reason


FILTERED_SPEC = """\
spec t "filter test"
  target: {target}

function f(n: int) -> int
  requirement F-0 "Only multiples of 1000003 above a million."
    requires n > 1000000 and n % 1000003 == 0
  requirement F-1 "Returns its argument."
    ensures result == n
"""


def test_too_much_filtering_is_unknown(tmp_path: Path) -> None:
    spec = write_case(tmp_path, "def f(n: int) -> int:\n    return n\n", FILTERED_SPEC)
    results = {r.id: r for r in run_check(spec, engines=("hypothesis",), hypothesis_examples=50)}
    v = results["F-1"].verdicts[0]
    assert v.verdict is Verdict.UNKNOWN and v.reason.startswith("too much filtering"), v.reason
    assert v.budget.rejected and v.budget.rejected > v.budget.examples  # type: ignore[operator]


RARE = """
def f(n: int) -> int:
    if n == 1023 * 1023:
        return -1
    return n
"""


@pytest.mark.slow
def test_engines_disagree_on_a_rare_input(tmp_path: Path) -> None:
    spec = write_case(tmp_path, RARE)
    [r] = run_check(spec, budget_s=5.0, engines=("crosshair", "hypothesis"), hypothesis_examples=100)
    by = {v.engine: v for v in r.verdicts}
    assert by["crosshair"].verdict is Verdict.REFUTED and by["crosshair"].counterexample == "f(1046529)"
    assert r.verdict is Verdict.REFUTED
    # the first replayed refutation stops the other engine (issue 20): Hypothesis is then not run or stopped;
    # when it finished first, without reaching the input, the engines disagree and the report says so
    hyp = by["hypothesis"]
    if hyp.verdict is Verdict.UNKNOWN:
        assert hyp.reason.startswith(("not run: the crosshair engine refuted", "stopped: the crosshair engine")), hyp
        assert r.disagreement is None
    else:
        assert hyp.verdict is Verdict.NO_COUNTEREXAMPLE
        assert r.disagreement == "engines disagree: crosshair refuted; hypothesis no-counterexample"


def test_hypothesis_unsupported_type_is_unknown(tmp_path: Path) -> None:
    spec_src = ('spec t "t"\n  target: {target}\n\nfunction f(a: Account) -> int\n'
                '  requirement F-1 "x"\n    ensures result == 0\n')
    spec = write_case(tmp_path, "class Account:\n    pass\ndef f(a: Account) -> int:\n    return 0\n", spec_src)
    [r] = run_check(spec, engines=("hypothesis",))
    assert r.verdicts[0].verdict is Verdict.UNKNOWN and r.verdicts[0].reason.startswith("unsupported")
