"""The Python meaning of spec expressions, and the generated harness module."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from evalgap.specs_lang import parse
from evalgap.translators import build_harness
from evalgap.translators.pyexpr import free_names, to_python


def _expr(text: str):  # type: ignore[no-untyped-def]
    spec = parse(f'requirement R-1 "p"\n  example {text}\n')
    return spec.requirements[0].clauses[0].expr  # type: ignore[union-attr]


def _eval(text: str, **env: object) -> object:
    return eval(to_python(_expr(text)), {}, dict(env))  # noqa: S307 - test of our own translation


def test_implication_and_iff() -> None:
    for a in (False, True):
        for b in (False, True):
            assert _eval("a ==> b", a=a, b=b) == ((not a) or b)
            assert _eval("a <==> b", a=a, b=b) == (a == b)
    # right-associative: a ==> (b ==> c)
    assert _eval("a ==> b ==> c", a=True, b=False, c=False) is True


def test_quantifiers() -> None:
    assert _eval("forall x in xs: x > 0", xs=[1, 2]) is True
    assert _eval("forall x in xs: x > 0", xs=[]) is True
    assert _eval("exists x in xs: x > 1", xs=[1, 2]) is True
    assert _eval("forall i, x in enumerate(xs): x == i", xs=[0, 1, 2]) is True


@settings(max_examples=200, deadline=None)
@given(a=st.integers(-50, 50), b=st.integers(-50, 50).filter(lambda v: v != 0), c=st.integers(-50, 50))
def test_arithmetic_and_chains_match_cpython(a: int, b: int, c: int) -> None:
    for text in ("a // b", "a % b", "-a ** 2", "a < c <= b", "a == c != b", "not a < b or c > a and b",
                 "(a if a > b else c) * 2 - b", "True + a == a + 1", "a / b"):
        assert _eval(text, a=a, b=b, c=c) == eval(text, {}, {"a": a, "b": b, "c": c}), text  # noqa: S307


def test_free_names_respect_binders() -> None:
    assert free_names(_expr("forall x in xs: x > y")) == {"xs", "y"}
    assert free_names(_expr("[x for x in xs if x > k]")) == {"xs", "k"}


def test_harness_is_valid_python_with_named_conditions() -> None:
    spec = parse(
        'function isqrt(n: int) -> int\n'
        '  requirement SQ-1 "Only non-negative inputs."\n    requires n >= 0\n'
        '  requirement SQ-2 "Floor of the square root."\n    ensures result * result <= n\n')
    h = build_harness(spec, "mymod")
    tree = ast.parse(h.source)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "check_SQ_2" in funcs and "_eg_post_check_SQ_2_0" in funcs
    assert "'SQ-2: Floor of the square root.'" in h.source
    assert "'[pre] SQ-1: Only non-negative inputs.'" in h.source
    ob = h.obligation("SQ-2")
    assert ob.kind == "function" and ob.preconditions == ("SQ-1",) and ob.target_function == "isqrt"
    assert h.obligation("SQ-1").kind == "precondition"


def test_harness_binds_target_helpers_named_eg() -> None:
    """A differential spec reads `_eg_pre`/`_eg_same` from its support module: the harness must bind them
    (a missing binding made every precondition raise NameError: CrossHair's "vacuous precondition")."""
    spec = parse('spec s "d"\n  target: eg_diff.py\n\nfunction f(l: list[int] len 1..3)\n'
                 '  requirement PRE "p"\n    requires _eg_pre(l)\n'
                 '  requirement DIFF "d"\n    ensures _eg_same(result, l)\n')
    src = build_harness(spec, "eg_diff", "h").source
    assert "_eg_pre = getattr(_eg_target, '_eg_pre'" in src and "_eg_same = getattr(_eg_target, '_eg_same'" in src
    assert "_eg_target = getattr" not in src and "_eg_e0 = getattr" not in src


def test_hypothesis_strategies_cover_every_harness_parameter() -> None:
    """Method and invariant obligations take constructor/step parameters the spec's function signature
    lacks; one strategy per parameter (a short call was replayed as a TypeError 'refutation')."""
    from evalgap.translators.to_hypothesis import obligation_strategies

    spec = parse('spec s "c"\n  target: t.py\n\nclass Account\n  method deposit(amount: int in 1..9) -> None\n'
                 '    requirement AC-2 "a"\n      ensures self.balance == old(self.balance) + amount\n'
                 '  requirement AC-1 "b"\n    invariant self.balance >= 0\n')
    harness = build_harness(spec, "t", "h")
    for req, owner in spec.all_requirements():
        ob = harness.obligation(req.id)
        got = obligation_strategies(spec, req, owner, ob.params)
        assert len(got) == len(ob.params) and ob.params, req.id
    ac2 = harness.obligation("AC-2")
    assert obligation_strategies(spec, spec.classes[0].methods[0].requirements[0], spec.classes[0].methods[0],
                                 ac2.params) == ("st.integers(min_value=1, max_value=9)",)
