"""Counterexamples CrossHair prints with its library stand-ins or the target's own classes are rebuilt for the
replay (verifier/engines/standins.py), and class scenarios skip objects the constructor refuses to build."""

from __future__ import annotations

import random
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import icontract
import pytest

from evalgap.specs_lang import parse
from evalgap.translators import build_harness
from evalgap.translators.icontract_state import CONSTRUCTION_BOUND
from evalgap.verifier.engines.standins import ExplicitRandom, replay_namespace


def test_crosshair_random_stand_in_is_rebuilt_and_replays_its_draws() -> None:
    ns = replay_namespace(types.ModuleType("h"), None)
    rng = eval("crosshair.libimpl.randomlib.ExplicitRandom([2, 0.25])", ns)  # noqa: S307 - the printed form
    assert isinstance(rng, random.Random) and "crosshair" not in sys.modules
    assert rng.choice(["a", "b", "boo"]) == "boo"  # the int draw 2 picks index 2, as in CrossHair
    assert rng.random() == 0.25 and rng.random() == 0.0  # past the recorded draws: CrossHair's default 0
    assert repr(ExplicitRandom([1])) == "crosshair.libimpl.randomlib.ExplicitRandom([1])"
    assert ExplicitRandom([5]).random() == pytest.approx(0.2)  # an int read as a float: 1/|n|


def test_target_classes_the_spec_never_names_are_rebuilt() -> None:
    target = types.ModuleType("eg_chess_t")
    exec("class Pawn:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n",  # noqa: S102 - fixture
         target.__dict__)
    harness = types.ModuleType("eg_chess_h")
    harness.__dict__["check"] = len
    ns = replay_namespace(harness, target)
    pawn = eval("Pawn(0, 3)", ns)  # noqa: S307 - CrossHair's repr of a subclass instance
    assert type(pawn).__name__ == "Pawn" and pawn.y == 3 and ns["check"] is len
    assert "Pawn" not in replay_namespace(harness, None)


SPEC = '''spec c "piece"
  target: eg_piece_t.py

class Piece
  method __init__(x: int)
  method move(d: int) -> int
    requirement P-1 "A move returns the new position."
      ensures result == self.x
  requirement P-2 "The position stays on the board."
    invariant 0 <= self.x < 8
'''

CODE = '''
class Piece:
    def __init__(self, x):
        if not 0 <= x < 8:
            raise ValueError("off the board")
        self.x = x
    def move(self, d):
        self.x = (self.x + d) % 8
        return self.x
'''


@pytest.fixture
def harness_ns() -> Iterator[dict[str, Any]]:
    target = types.ModuleType("eg_piece_t")
    exec(compile(CODE, "eg_piece_t.py", "exec"), target.__dict__)  # noqa: S102 - our own fixture
    sys.modules["eg_piece_t"] = target
    h = build_harness(parse(SPEC), "eg_piece_t", "eg_piece_h")
    ns: dict[str, Any] = {"__name__": "eg_piece_h", "_eg_obligations": h}
    exec(compile(h.source, "eg_piece_h.py", "exec"), ns)  # noqa: S102 - generated harness of our own spec
    yield ns
    del sys.modules["eg_piece_t"]


def test_a_refused_construction_is_no_counterexample(harness_ns: dict[str, Any]) -> None:
    h = harness_ns["_eg_obligations"]
    inv = h.obligation("P-2")
    fn: Callable[..., int] = harness_ns[inv.function]
    args = {p: 0 for p, _ in inv.params}
    assert fn(**{**args, "init_x": -1}) == 0  # ValueError from __init__: no object, nothing to refute
    assert fn(**{**args, "init_x": 3, "op1": 0, "s1_move_d": 1}) == 0
    assert CONSTRUCTION_BOUND in inv.bounds
    meth: Callable[..., int] = harness_ns[h.obligation("P-1").function]
    assert meth(init_x=9, d=1) == 0


def test_a_broken_method_is_still_refuted(harness_ns: dict[str, Any]) -> None:
    h = harness_ns["_eg_obligations"]
    target: Any = sys.modules["eg_piece_t"]
    target.Piece.move = lambda self, d: self.x + d
    meth: Callable[..., int] = harness_ns[h.obligation("P-1").function]
    with pytest.raises(icontract.ViolationError):
        meth(init_x=3, d=1)


def test_an_abstract_class_is_not_vacuously_verified(harness_ns: dict[str, Any]) -> None:
    """Building an abstract class always fails: that is re-raised (a spec error), never a passing path."""
    import abc

    h = harness_ns["_eg_obligations"]
    target: Any = sys.modules["eg_piece_t"]
    target.Piece = abc.ABCMeta("Piece", (abc.ABC,), {"__init__": lambda self, x: None,
                                                     "move": abc.abstractmethod(lambda self, d: d)})
    harness_ns["Piece"] = target.Piece
    meth: Callable[..., int] = harness_ns[h.obligation("P-1").function]
    with pytest.raises(TypeError, match="abstract"):
        meth(init_x=3, d=1)
    harness_ns["Piece"] = type("Piece", (), {})  # a constructor taking no argument: the call itself fails
    with pytest.raises(TypeError, match="takes no arguments"):
        meth(init_x=3, d=1)
