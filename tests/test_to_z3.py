"""The Z3 translation against CPython: random expressions evaluated both ways must agree (values and
whether Python raises), covering negative ``//`` and ``%``, chained comparisons and bool arithmetic."""

from __future__ import annotations

from typing import Any

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgap.specs_lang import ast as A
from evalgap.specs_lang import parse
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.pyexpr import to_python
from evalgap.translators.to_z3 import Translator, Val, build_function_models
from evalgap.translators.to_z3 import arith as zarith
from evalgap.translators.to_z3 import expr as zexpr
from evalgap.translators.to_z3.types import BOOL, INT

NAMES = {"a": INT, "b": INT, "c": INT, "p": BOOL, "q": BOOL}

leaves = st.one_of(st.sampled_from([A.Name(n) for n in NAMES]),
                   st.integers(-6, 6).map(A.Const), st.booleans().map(A.Const))


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(A.BinOp, st.sampled_from(["+", "-", "*", "//", "%"]), inner, inner),
        st.builds(A.UnaryOp, st.just("-"), inner),
        st.builds(lambda op, xs: A.BoolOp(op, tuple(xs)), st.sampled_from(["and", "or"]),
                  st.lists(inner, min_size=2, max_size=3)),
        st.builds(A.Not, inner),
        st.builds(lambda l, ops, cs: A.Compare(l, tuple(ops[:len(cs)]), tuple(cs)), inner,
                  st.lists(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), min_size=3, max_size=3),
                  st.lists(inner, min_size=1, max_size=3)),
        st.builds(A.IfExp, inner, inner, inner),
        st.builds(lambda f, x, y: A.Call(A.Name(f), (x, y)), st.sampled_from(["min", "max"]), inner, inner),
        st.builds(lambda x: A.Call(A.Name("abs"), (x,)), inner),
    )


exprs = st.recursive(leaves, _extend, max_leaves=12)
envs = st.fixed_dictionaries({"a": st.integers(-9, 9), "b": st.integers(-9, 9), "c": st.integers(-3, 3),
                              "p": st.booleans(), "q": st.booleans()})


def z3_eval(node: Any, env: dict[str, Any]) -> tuple[bool, Any]:
    """(defined, value) of ``node`` under the Z3 translation with concrete ``env``."""
    zenv = {n: Val(ty, z3.BoolVal(env[n]) if ty == BOOL else z3.IntVal(env[n])) for n, ty in NAMES.items()}
    v, defined = Translator(zenv).value(node)
    d = z3.simplify(defined)
    if not z3.is_true(d):
        assert z3.is_false(d), d
        return False, None
    val = z3.simplify(v.term)
    return True, (z3.is_true(val) if z3.is_bool(val) else val.as_long())


def py_eval(node: Any, env: dict[str, Any]) -> tuple[bool, Any]:
    try:
        return True, eval(to_python(node), {"__builtins__": {"min": min, "max": max, "abs": abs}}, dict(env))
    except ZeroDivisionError:
        return False, None


def agree(node: Any, env: dict[str, Any]) -> bool:
    zd, zv = z3_eval(node, env)
    pd, pv = py_eval(node, env)
    return zd == pd and (not pd or zv == pv)


@settings(max_examples=300, deadline=None)
@given(exprs, envs)
def test_z3_meaning_equals_cpython(node: Any, env: dict[str, Any]) -> None:
    assert agree(node, env), (to_python(node), env, z3_eval(node, env), py_eval(node, env))


@pytest.mark.parametrize("src, expected", [
    ("-7 // 2", -4), ("7 // -2", -4), ("-7 % 2", 1), ("7 % -2", -1), ("-7 % -2", -1), ("True + 1", 2),
    ("1 < 2 < 3", True), ("3 > 2 > 2", False), ("0 or 5", 5), ("3 and 0", 0), ("abs(-4)", 4),
    ("min(3, -1, 2)", -1), ("max(True, 0)", 1),
])
def test_known_values(src: str, expected: Any) -> None:
    node = _expr(src)
    assert z3_eval(node, {n: 0 for n in NAMES}) == (True, expected) == py_eval(node, {})


def test_differential_check_catches_smt_div(monkeypatch: pytest.MonkeyPatch) -> None:
    """Translating `//` as SMT-LIB `div` (Euclidean) must be caught by the same comparison."""
    node = _expr("a // b")
    env = {"a": 7, "b": -2, "c": 0, "p": False, "q": False}
    assert agree(node, env)
    monkeypatch.setattr(zarith, "_py_floordiv", lambda x, y: x / y)
    assert not agree(node, env)


def test_division_by_zero_is_undefined_only_when_reached() -> None:
    env = {"a": 1, "b": 0, "c": 0, "p": False, "q": False}
    assert z3_eval(_expr("a // b"), env) == (False, None)
    assert z3_eval(_expr("b != 0 and a // b > 0"), env) == (True, False)
    assert z3_eval(_expr("b == 0 or a % b == 0"), env) == (True, True)


def test_int_division_is_real_and_noted() -> None:
    t = Translator({})
    v, _ = t.value(_expr("7 / 2"))
    assert z3.simplify(v.term) == z3.RealVal("7/2") or str(z3.simplify(v.term)) == "7/2"
    assert any("real division" in n for n in t.notes)


def _models(text: str) -> list[Any]:
    return build_function_models(parse(text))


def test_sequences_indexing_slicing_and_len() -> None:
    spec = ("function f(xs: list[int]) -> int\n  requirement R-1 \"r\"\n"
            "    ensures xs[-1] == result and len(xs[1:]) == len(xs) - 1 and sum(xs) >= result - 100\n")
    m = _models(spec)[0]
    r = m.requirements[0]
    assert r.unsupported is None
    s = z3.Solver()
    xs = m.params[0][2]
    s.add(r.formula, xs == z3.Concat(z3.Unit(z3.IntVal(4)), z3.Unit(z3.IntVal(9))))
    assert s.check() == z3.sat
    assert s.model().eval(m.result[1]).as_long() == 9
    s2 = z3.Solver()
    s2.add(r.formula, z3.Length(xs) == 0)  # xs[-1] raises on []: the requirement cannot hold
    assert s2.check() == z3.unsat


def test_recursive_def_helper_becomes_recursive_function() -> None:
    spec = ("def fact(n: int) -> int: 1 if n <= 1 else n * fact(n - 1)\n"
            "function f(n: int) -> int\n  requirement R-1 \"r\"\n    ensures result == fact(n)\n")
    m = _models(spec)[0]
    s = z3.Solver()
    s.add(m.requirements[0].formula, m.params[0][2] == 5)
    assert s.check() == z3.sat and s.model().eval(m.result[1]).as_long() == 120


@pytest.mark.parametrize("clause, construct", [
    ("ensures sorted(result) == xs", "sorted()"), ("ensures result == old(len(xs))", "old()"),
    ("ensures result == {1: 2}[1]", "dict"),
])
def test_outside_fragment_is_named(clause: str, construct: str) -> None:
    spec = f"function f(xs: list[int]) -> int\n  requirement R-1 \"r\"\n    {clause}\n"
    r = _models(spec)[0].requirements[0]
    assert r.formula is None and r.unsupported == f"not in the Z3 fragment: {construct}"


def test_unsupported_raises_construct() -> None:
    with pytest.raises(UnsupportedConstruct):
        Translator({}).expr(_expr("x.foo()"))


def _expr(src: str) -> Any:
    spec = parse(f"function f() -> int\n  requirement R-1 \"r\"\n    ensures {src}\n")
    clause = spec.functions[0].requirements[0].clauses[0]
    assert isinstance(clause, A.Ensures)
    return clause.expr


def test_helpers_shared_across_requirements_and_specs() -> None:
    text = ("def total(xs: list[int]) -> int: 0 if len(xs) == 0 else xs[0] + total(xs[1:])\n"
            "function f(xs: list[int]) -> int\n  requirement R-1 \"a\"\n    ensures result == total(xs)\n"
            "  requirement R-2 \"b\"\n    ensures result == sum(xs)\n")
    for _ in range(2):  # the same helper and builtin names in a second spec of the same process
        m = _models(text)[0]
        s = z3.Solver()
        xs = m.params[0][2]
        s.add(*[r.formula for r in m.requirements],
              xs == z3.Concat(z3.Unit(z3.IntVal(2)), z3.Unit(z3.IntVal(-5))))
        assert s.check() == z3.sat and s.model().eval(m.result[1]).as_long() == -3


LIST_EXPRS = [
    "xs[i]", "xs[-1]", "xs[i:j]", "xs[i:]", "xs[:j]", "xs[-2:]", "len(xs[i:j])", "sum(xs)", "min(xs)",
    "max(xs)", "i in xs", "xs + [i]", "[i, j] + xs", "xs[i] // j", "len(xs) % j", "reversed(xs)",
    "all(x > i for x in xs)", "any(x == j for x in xs)", "[x * 2 for x in xs]", "xs == [i, j]",
    "len(xs) > i and xs[i] > j", "0 <= i < len(xs) and xs[i] == xs[-len(xs) + i]",
]


def _seq(values: list[int]) -> Any:
    if not values:
        return z3.Empty(z3.SeqSort(z3.IntSort()))
    units = [z3.Unit(z3.IntVal(v)) for v in values]
    return units[0] if len(units) == 1 else z3.Concat(*units)


def _py_list_eval(src: str, env: dict[str, Any]) -> tuple[bool, Any]:
    py = src.replace("reversed(xs)", "list(reversed(xs))")
    try:
        builtins = {"len": len, "sum": sum, "min": min, "max": max, "all": all, "any": any, "list": list,
                    "reversed": reversed}
        return True, eval(py, {"__builtins__": builtins, **env})  # globals: generator scopes see them
    except (IndexError, ValueError, ZeroDivisionError):
        return False, None


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(LIST_EXPRS), st.lists(st.integers(-4, 4), max_size=4), st.integers(-5, 5),
       st.integers(-5, 5))
def test_list_expressions_equal_cpython(src: str, xs: list[int], i: int, j: int) -> None:
    node = parse(f"function f(xs: list[int], i: int, j: int) -> int\n  requirement R-1 \"r\"\n    ensures {src}\n")
    expr = node.functions[0].requirements[0].clauses[0].expr  # type: ignore[union-attr]
    from evalgap.translators.to_z3.types import Ty

    env = {"xs": Val(Ty("seq", (INT,)), _seq(xs)), "i": Val(INT, z3.IntVal(i)), "j": Val(INT, z3.IntVal(j))}
    v, defined = Translator(env).value(expr)
    pd, pv = _py_list_eval(src, {"xs": xs, "i": i, "j": j})
    s = z3.Solver()
    s.add(z3.Not(defined) if pd else defined)
    assert s.check() == z3.unsat, (src, xs, i, j, "definedness differs")
    if not pd:
        return
    if isinstance(pv, list):
        want = _seq(pv)
    elif isinstance(pv, bool):
        want = z3.BoolVal(pv)
    else:
        want = z3.IntVal(pv)
    got = v.term if not (isinstance(pv, int) and not isinstance(pv, bool) and z3.is_bool(v.term)) else \
        z3.If(v.term, 1, 0)
    s2 = z3.Solver()
    s2.add(got != want)
    assert s2.check() == z3.unsat, (src, xs, i, j, pv)


def test_let_is_a_named_expression_evaluated_where_used() -> None:
    text = ("function f(xs: list[int]) -> int\n  requirement R-1 \"r\"\n    let last = xs[-1]\n"
            "    ensures len(xs) == 0 or result == last\n")
    m = _models(text)[0]
    s = z3.Solver()
    s.add(m.requirements[0].formula, z3.Length(m.params[0][2]) == 0)  # `last` is never evaluated on []
    assert s.check() == z3.sat
