"""`Callable[[A, ...], R]` parameters (issue 23): parsed, formatted and checked; Hypothesis draws simple pure
functions (constants, projections, lookup tables) and CrossHair a symbolic lookup table, so a correct
implementation is never refuted by a function that changes its answer between calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from enginehelp import run_check, write_case
from evalgap.specs_lang import parse
from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang.format import format_spec
from evalgap.translators import build_harness
from evalgap.translators.callables import CALLABLE_RUNTIME
from evalgap.translators.to_hypothesis import strategy_source
from evalgap.verifier.findings import Verdict

TARGET = '''\
def apply_all(f, xs):
    return [f(x) for x in xs]


def bad_apply_all(f, xs):
    return [f(x) for x in xs[:2]]
'''

SPEC = '''\
spec cb "callables"
  target: {target}

function apply_all(f: Callable[[int], int], xs: list[int]) -> list[int]
  requirement AP-1 "Applies f to every element, in order."
    ensures result == [f(x) for x in xs]

function bad_apply_all(f: Callable[[int], int], xs: list[int]) -> list[int]
  requirement AP-2 "Applies f to every element, in order."
    ensures result == [f(x) for x in xs]
'''


def test_parse_format_and_check() -> None:
    text = SPEC.format(target="cb.py") + (
        "\nfunction g(h: Callable[[], str], k: Callable[[int, str], bool]) -> bool\n"
        "  requirement G-1 \"p\"\n    ensures result == k(1, h())\n")
    spec = parse(text)
    f = spec.functions[0].params[0].type
    assert f.name == "Callable" and f.args[0].name == "[]" and [str(a) for a in f.args[0].args] == ["int"]
    assert str(f) == "Callable[[int], int]"
    assert str(spec.functions[2].params[0].type) == "Callable[[], str]"
    assert format_spec(spec, text) == text
    check_spec(spec)  # no EG206 for the parameter list


def _namespace() -> dict[str, object]:
    ns: dict[str, object] = {"st": st}
    exec("from typing import Any\n" + "\n".join(CALLABLE_RUNTIME), ns)  # noqa: S102 - our own runtime source
    return ns


def test_drawn_functions_are_pure_and_typed() -> None:
    t = parse(SPEC.format(target="cb.py")).functions[0].params[0].type
    src = strategy_source(t)
    assert "_EgFn('const'" in src and "_EgFn('proj', 0)" in src and "'table'" in src
    ns = _namespace()
    strategy = eval(src, ns)  # noqa: S307 - our own translation
    kinds: set[str] = set()

    @settings(max_examples=100, database=None, derandomize=True)
    @given(strategy, st.integers())
    def prop(fn: object, x: int) -> None:
        kinds.add(fn.kind)  # type: ignore[attr-defined]
        assert fn(x) == fn(x) and isinstance(fn(x), int)  # type: ignore[operator]
        assert repr(eval(repr(fn), ns)) == repr(fn)  # noqa: S307 - the repr rebuilds the function

    prop()
    assert kinds == {"const", "proj", "table"}
    b = parse("function f(p: Callable[[int], bool]) -> int\n  requirement R \"p\"\n    ensures True\n")
    assert "'proj'" not in strategy_source(b.functions[0].params[0].type)  # int -> bool: no projection


def test_crosshair_gets_a_pure_table() -> None:
    h = build_harness(parse(SPEC.format(target="cb.py")), "cb", "h")
    assert "(self, table: dict[int, int], default: int) -> None:" in h.source
    assert "def check_AP_1(f: _EgFn_" in h.source


@pytest.mark.slow
def test_engines_refute_only_the_wrong_one(tmp_path: Path) -> None:
    spec = write_case(tmp_path / "c", TARGET, SPEC, name="cb_t")
    res = {r.id: r for r in run_check(spec, engines=("crosshair", "hypothesis"), budget_s=4.0)}
    assert res["AP-1"].verdict is Verdict.NO_COUNTEREXAMPLE  # CrossHair's impure stand-in refuted it
    assert res["AP-2"].verdict is Verdict.REFUTED
    assert all(v.verdict is Verdict.REFUTED for v in res["AP-2"].verdicts)
    assert all("_EgFn" in (v.counterexample or "") for v in res["AP-2"].verdicts)
