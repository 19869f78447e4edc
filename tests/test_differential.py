"""Differential tests of the constructs' meaning: the compiled Python/icontract condition agrees with an
independent evaluation of the documented meaning (CPython on random values)."""

from __future__ import annotations

import importlib
import operator
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import icontract
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgap.specs_lang import ast as A
from evalgap.specs_lang import parse
from evalgap.specs_lang.lower import domain_conditions, inline_lets
from evalgap.translators.pyexpr import to_python
from evalgap.translators.to_icontract import build_harness


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
    "in": lambda a, b: a in b}

def _ref(e: Any, env: dict[str, Any]) -> Any:  # noqa: C901 - the documented meaning, node by node
    """The documented meaning of a spec expression, written independently of the translator."""
    if isinstance(e, A.Name):
        return env[e.id]
    if isinstance(e, A.Const):
        return e.value
    if isinstance(e, A.Implies):
        return (not _ref(e.left, env)) or _ref(e.right, env)
    if isinstance(e, A.Iff):
        return bool(_ref(e.left, env)) == bool(_ref(e.right, env))
    if isinstance(e, A.Not):
        return not _ref(e.operand, env)
    if isinstance(e, A.BoolOp):
        vals = [_ref(v, env) for v in e.values]
        return all(vals) if e.op == "and" else any(vals)
    if isinstance(e, A.Compare):
        left = _ref(e.left, env)
        for op, c in zip(e.ops, e.comparators):
            right = _ref(c, env)
            ok = _COMPARE[op](left, right)
            if not ok:
                return False
            left = right
        return True
    if isinstance(e, A.Quantifier):
        results = (_ref(e.body, {**env, e.targets[0]: x}) for x in _ref(e.domain, env))
        return all(results) if e.kind == "forall" else any(results)
    if isinstance(e, A.BinOp):
        a, b = _ref(e.left, env), _ref(e.right, env)
        return {"+": a + b, "-": a - b, "*": a * b}[e.op]
    if isinstance(e, A.Call) and isinstance(e.func, A.Name) and e.func.id == "len":
        return len(_ref(e.args[0], env))
    raise NotImplementedError(type(e).__name__)


def _expr(text: str) -> A.Expr:
    return parse(f'requirement R "p"\n  example {text}\n').requirements[0].clauses[0].expr  # type: ignore[union-attr]


FORMULAS = [
    "a ==> b", "a <==> b", "a ==> b ==> c", "not a ==> b <==> c", "x < y <= z", "x < y == z > x",
    "forall v in xs: v <= y ==> v < z", "exists v in xs: v == x and v > y", "x in xs <==> len(xs) > y",
    "(forall v in xs: v > 0) ==> x + y > 0", "a and b or c ==> x * 2 - y >= z",
]


@pytest.mark.parametrize("formula", FORMULAS)
@settings(max_examples=60, deadline=None)
@given(a=st.booleans(), b=st.booleans(), c=st.booleans(), x=st.integers(-3, 3), y=st.integers(-3, 3),
       z=st.integers(-3, 3), xs=st.lists(st.integers(-3, 3), max_size=4))
def test_compiled_expression_agrees_with_documented_meaning(formula: str, a: bool, b: bool, c: bool, x: int,
                                                            y: int, z: int, xs: list[int]) -> None:
    env = dict(a=a, b=b, c=c, x=x, y=y, z=z, xs=xs)
    e = _expr(formula)
    assert bool(eval(to_python(e), dict(env))) == bool(_ref(e, env))  # noqa: S307


def _domain_ok(text: str, value: Any) -> bool:
    param = parse(f'function f(v: {text}) -> int\n  requirement R "p"\n    ensures True\n').functions[0].params[0]
    return all(eval(to_python(c), {"v": value}) for c in domain_conditions(param))  # noqa: S307


@settings(max_examples=80, deadline=None)
@given(n=st.integers(-20, 20), lo=st.integers(-10, 10), hi=st.integers(-10, 10))
def test_int_range_is_inclusive(n: int, lo: int, hi: int) -> None:
    assert _domain_ok(f"int in {lo}..{hi}", n) == (lo <= n <= hi)


@settings(max_examples=80, deadline=None)
@given(xs=st.lists(st.integers(-5, 15), max_size=6))
def test_list_length_and_element_range(xs: list[int]) -> None:
    assert _domain_ok("list[int in 0..9] len 1..4", xs) == (1 <= len(xs) <= 4 and all(0 <= v <= 9 for v in xs))


@settings(max_examples=80, deadline=None)
@given(s=st.text(max_size=6))
def test_alphabets(s: str) -> None:
    assert _domain_ok("str digits", s) == all(ch in "0123456789" for ch in s)
    assert _domain_ok('str chars "ab" len 0..3', s) == (len(s) <= 3 and set(s) <= {"a", "b"})
    assert _domain_ok("str ascii", s) == s.isascii()


@settings(max_examples=40, deadline=None)
@given(d=st.dictionaries(st.text(max_size=3), st.integers(-5, 5), max_size=3) | st.none())
def test_optional_dict_narrowing(d: dict[str, int] | None) -> None:
    expect = d is None or all(len(k) <= 2 and 0 <= v <= 5 for k, v in d.items())
    assert _domain_ok("Optional[dict[str len 0..2, int in 0..5]]", d) == expect


def test_let_is_substituted_respecting_shadowing() -> None:
    req = parse('function f(xs: list[int]) -> int\n  requirement R "p"\n    let m = len(xs)\n'
                '    ensures result <= m and (forall m in xs: m >= 0)\n').functions[0].requirements[0]
    (ens,) = inline_lets(req.clauses)
    text = to_python(ens.expr)  # type: ignore[union-attr]
    assert "len(xs)" in text and "(m >= 0)" in text


TARGET = '''
class Account:
    def __init__(self):
        self.balance = 0
    def deposit(self, amount):
        self.balance += amount
    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient")
        self.balance -= amount

class BadAccount(Account):
    def withdraw(self, amount):
        self.balance -= amount

def pop_last(xs):
    return xs.pop()

def pop_first(xs):
    return xs.pop(0)

def checked_sqrt(n):
    if n < 0:
        raise ValueError(n)
    return int(n ** 0.5)

class Client:
    def send(self, msg):
        return True

def publish(c, msg):
    try:
        c.send(msg)
        return 1
    except TimeoutError:
        c.send(msg)
        return 2
'''

SPEC = '''
stub Client.send(msg: bytes) -> bool: one of (True, raises TimeoutError)
def double(n: int) -> int: 0 if n == 0 else 2 + double(n - 1)

function pop_last(xs: list[int]) -> int
  requirement P-1 "Pops the last element."
    requires len(xs) > 0
    ensures result == old(xs[-1]) and len(xs) == old(len(xs)) - 1

function pop_first(xs: list[int]) -> int
  requirement Q-1 "Pops the last element (pop_first breaks it)."
    requires len(xs) > 1
    ensures result == old(xs[-1])

function checked_sqrt(n: int in -100..100) -> int
  requirement S-1 "Negative input raises ValueError."
    raises ValueError when n < 0
  requirement S-2 "Result squared is at most n; double() is a recursive helper."
    ensures result * result <= n and double(result) == 2 * result

class Account
  method withdraw(amount: int in 1..100) -> None
    requirement W-1 "Overdraft raises."
      raises ValueError when amount > self.balance
  method deposit(amount: int in 1..100) -> None
    requirement D-1 "Deposit adds."
      ensures self.balance == old(self.balance) + amount
  requirement INV-1 "Never negative."
    invariant self.balance >= 0

requirement PUB-1 "Publishing survives one timeout."
  scenario (msg: bytes):
    expect publish(Client(), msg) <= 2
'''


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp_path = tmp_path_factory.mktemp("diff")
    (tmp_path / "eg_diff_target.py").write_text(TARGET, encoding="utf-8")
    h = build_harness(parse(SPEC, "diff.req"), "eg_diff_target", "eg_diff_harness")
    (tmp_path / "eg_diff_harness.py").write_text(h.source, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    for m in ("eg_diff_target", "eg_diff_harness"):
        sys.modules.pop(m, None)
    try:
        yield importlib.import_module("eg_diff_harness"), h
    finally:
        sys.path.remove(str(tmp_path))


def test_obligation_kinds(harness: Any) -> None:
    _, h = harness
    kinds = {ob.req_id: ob.kind for ob in h.obligations}
    assert kinds == {"P-1": "function", "Q-1": "function", "S-1": "scenario", "S-2": "function",
                     "W-1": "scenario", "D-1": "scenario", "INV-1": "scenario", "PUB-1": "scenario"}
    assert "n: int in -100..100" in h.obligation("S-2").preconditions
    assert "S-1" in h.obligation("S-2").preconditions  # the exceptional case is excluded from S-2's domain


@settings(max_examples=40, deadline=None)
@given(xs=st.lists(st.integers(), min_size=2, max_size=5))
def test_old_snapshots_pre_state(harness: Any, xs: list[int]) -> None:
    mod, _ = harness
    assert mod.check_P_1(list(xs)) == xs[-1]
    if xs[0] != xs[-1]:
        with pytest.raises(icontract.ViolationError, match="Q-1"):
            mod.check_Q_1(list(xs))


def test_precondition_violation_is_marked(harness: Any) -> None:
    mod, _ = harness
    with pytest.raises(icontract.ViolationError, match=r"^\[pre\]|\n\[pre\]|\[pre\] P-1"):
        mod.check_P_1([])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(-100, 100))
def test_raises_when(harness: Any, n: int) -> None:
    mod, _ = harness
    assert mod.check_S_1(n) == 0  # the target raises exactly when n < 0
    if n >= 0:
        assert mod.check_S_2(n) == int(n ** 0.5)
    else:
        with pytest.raises(icontract.ViolationError, match="exceptional case excluded"):
            mod.check_S_2(n)


@settings(max_examples=40, deadline=None)
@given(amount=st.integers(1, 100))
def test_method_raises_and_old(harness: Any, amount: int) -> None:
    mod, _ = harness
    assert mod.check_W_1.__wrapped__(amount) == 0  # a fresh account has balance 0 < amount: must raise
    assert mod.check_D_1(amount) == 0


def test_invariant_and_its_violation(harness: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    mod, _ = harness
    ob_params = [n for n, _ in _obligation(harness, "INV-1").params]
    args = {n: (0 if n.startswith("op") else 5) for n in ob_params}  # op 0 = withdraw (declared first), 5 > 0
    assert mod.check_INV_1(**args) == 0  # the real withdraw refuses the overdraft
    monkeypatch.setattr(mod, "Account", sys.modules["eg_diff_target"].BadAccount)
    with pytest.raises(icontract.ViolationError, match="INV-1"):
        mod.check_INV_1(**args)


def _obligation(harness: Any, rid: str) -> Any:
    return harness[1].obligation(rid)


def test_stub_outcomes_follow_the_picks(harness: Any) -> None:
    mod, _ = harness
    assert mod.check_PUB_1(b"m", []) == 0  # every call succeeds
    assert mod.check_PUB_1(b"m", [1, 0]) == 0  # one timeout, then success
    with pytest.raises(TimeoutError):
        mod.check_PUB_1(b"m", [1, 1])  # two timeouts: publish lets the second escape
    assert sys.modules["eg_diff_target"].Client.send is not None  # the stub was removed afterwards
    assert sys.modules["eg_diff_target"].Client().send(b"") is True
