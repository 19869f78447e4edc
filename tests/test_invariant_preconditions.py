"""Class invariants and method requirements respect the methods' (and the constructor's) preconditions:
an invariant need only hold after calls whose caller met the preconditions (design by contract)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import icontract
import pytest

from evalgap.specs_lang import parse
from evalgap.translators import build_harness

SPEC = '''spec c "counter"
  target: eg_counter_t.py

class Counter
  method __init__(start: int) -> None
    requirement C-0 "A counter starts at a non-negative value."
      requires start >= 0
  method bump(n: int) -> None
    requirement C-1 "Bumps are by non-negative amounts."
      requires n >= 0
    requirement C-2 "A bump adds n."
      ensures self.count == old(self.count) + n
  requirement C-3 "The count is never negative."
    invariant self.count >= 0
'''

RIGHT = '''
class Counter:
    def __init__(self, start):
        self.count = start
    def bump(self, n):
        self.count += n
'''

BROKEN = RIGHT.replace("self.count += n", "self.count -= n")


@pytest.fixture
def harness_ns(request: pytest.FixtureRequest) -> Iterator[dict[str, object]]:
    target = types.ModuleType("eg_counter_t")
    exec(compile(request.param, "eg_counter_t.py", "exec"), target.__dict__)  # noqa: S102 - our own fixture
    sys.modules["eg_counter_t"] = target
    h = build_harness(parse(SPEC), "eg_counter_t", "eg_counter_h")
    ns: dict[str, object] = {"__name__": "eg_counter_h"}
    exec(compile(h.source, "eg_counter_h.py", "exec"), ns)  # noqa: S102 - generated harness of our own spec
    ns["_eg_obligations"] = h
    yield ns
    del sys.modules["eg_counter_t"]


def _call(ns: dict[str, object], req_id: str, **kw: int) -> object:
    h = ns["_eg_obligations"]
    fn = ns[h.obligation(req_id).function]  # type: ignore[attr-defined]
    return fn(**kw)  # type: ignore[operator]


def _inv_args(h: object, **kw: int) -> dict[str, int]:
    params = [p for p, _ in h.obligation("C-3").params]  # type: ignore[attr-defined]
    return {p: kw.get(p, 0) for p in params}


@pytest.mark.parametrize("harness_ns", [RIGHT], indirect=True)
def test_calls_breaking_a_precondition_end_the_sequence(harness_ns: dict[str, object]) -> None:
    h = harness_ns["_eg_obligations"]
    # bump(-1) breaks C-1: the path passes instead of "refuting" the invariant
    assert _call(harness_ns, "C-3", **_inv_args(h, init_start=0, op1=0, s1_bump_n=-1)) == 0
    # a constructor argument breaking C-0 passes too
    assert _call(harness_ns, "C-3", **_inv_args(h, init_start=-5, op1=1)) == 0
    assert _call(harness_ns, "C-2", init_start=-5, n=1) == 0
    assert set(h.obligation("C-3").preconditions) >= {"C-0", "C-1"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("harness_ns", [BROKEN], indirect=True)
def test_a_real_violation_is_still_caught(harness_ns: dict[str, object]) -> None:
    h = harness_ns["_eg_obligations"]
    with pytest.raises(icontract.ViolationError):
        _call(harness_ns, "C-3", **_inv_args(h, init_start=0, op1=0, s1_bump_n=1))
    with pytest.raises(icontract.ViolationError):
        _call(harness_ns, "C-2", init_start=0, n=1)
