"""Concrete rebuilds of the values CrossHair prints for its library stand-ins, for the replay worker.

CrossHair replaces some library types by its own classes while it explores, and prints a counterexample
value of such a type by that class's name: a ``random.Random`` argument is printed as
``crosshair.libimpl.randomlib.ExplicitRandom([values])``. The replay worker must not import CrossHair (it would
switch icontract's checks off), so it evaluates those texts against the stand-ins here, which behave as
CrossHair's classes do on the printed values. Also: the namespace a printed argument is evaluated in
(:func:`replay_namespace`) holds the target module's names, so an instance of one of the target's classes
(``Pawn(x=0, y=0)``, a subclass the spec never names) is rebuilt too.
"""

from __future__ import annotations

import random
import types
from typing import Any

__all__ = ["ExplicitRandom", "replay_namespace"]


class ExplicitRandom(random.Random):
    """``random.Random`` returning a fixed sequence, as CrossHair's ``ExplicitRandom`` does.

    Args:
        future_values: the draws, in order: an int is the result of the next ``randrange``-style draw
            (``_randbelow``), a float the next ``random()`` (an int read by ``random()`` gives ``1/|n|``, a
            float read by ``_randbelow(cap)`` gives ``abs(hash(f)) % cap``, as in CrossHair); past the end
            every draw is 0 (CrossHair's defaults when nothing constrained the value).
        idx: the index of the next draw.
    """

    def __init__(self, future_values: list[int | float] | None = None, idx: int = 0) -> None:
        self._future_values = list(future_values or [])
        self._idx = idx
        super().__init__(0)

    def __repr__(self) -> str:
        return f"crosshair.libimpl.randomlib.ExplicitRandom({self._future_values!r})"

    def _next(self) -> int | float | None:
        i = self._idx
        self._idx += 1
        return self._future_values[i] if i < len(self._future_values) else None

    def random(self) -> float:
        """The next draw as a float in [0, 1)."""
        v = self._next()
        if v is None:
            return 0.0
        if isinstance(v, int):
            return 1.0 / abs(v) if v != 0 else 0.0
        return v

    def _randbelow(self, n: int) -> int:
        v = self._next()
        if v is None:
            return 0
        return abs(hash(v)) % n if isinstance(v, float) else v

    def getrandbits(self, k: int) -> int:
        """The next draw below ``2**k``."""
        return self._randbelow(2 ** k)


def _crosshair_names() -> types.SimpleNamespace:
    """A ``crosshair`` object holding the stand-ins at the dotted paths CrossHair prints."""
    randomlib = types.SimpleNamespace(ExplicitRandom=ExplicitRandom)
    return types.SimpleNamespace(libimpl=types.SimpleNamespace(randomlib=randomlib))


def replay_namespace(harness: object, target: object | None) -> dict[str, Any]:
    """The namespace a counterexample's printed arguments are evaluated in.

    Args:
        harness: the harness module (its names win).
        target: the target module, or None: its names come first (its classes, also those the spec never
            names), then ``crosshair`` (the stand-ins, when the target does not define that name).

    Returns:
        A new dict (evaluating the arguments does not change either module).
    """
    ns: dict[str, Any] = {"crosshair": _crosshair_names()}
    if target is not None:
        ns.update({k: v for k, v in vars(target).items() if not k.startswith("__")})
    ns.update(vars(harness))
    return ns
