"""Length splitting for CrossHair: one symbolic run per list length (issue 20).

CrossHair models a ``list[int] len 0..3`` parameter as one symbolic list whose length is itself symbolic:
every ``len()``, slice and loop over it forks on the length, and on a slice with a symbolic bound or a
library loop (pydash's ``drop``, ``take``, ``chunk``) the tree rarely gets exhausted within a few seconds,
so the requirement stays ``no-counterexample`` although it holds. When every list parameter of the check
function has a small length range from the spec (``len LO..HI`` with ``HI <= MAX_LENGTH``, at most
:data:`MAX_SHAPES` combinations), the CrossHair engine instead runs once per *shape* (one length per list
parameter): the list is a concrete Python list of that many symbolic elements
(:func:`shaped_gen_args`, installed in the worker), so only the elements' values are symbolic and the paths
left to exhaust are those of the values.

Soundness: the shapes are every length of the spec's own range, so the union of the shaped runs covers
exactly the domain the unsplit run covers; the verdict is ``verified`` only when CrossHair exhausted the
paths of every shape (under both hash seeds, as any CrossHair proof), ``refuted`` when a shape's
counterexample replays, and otherwise ``no-counterexample`` or ``unknown`` with what each shape reached. No
bound is added: the lengths are the spec's, not the engine's (see docs/engine.md, "Length splitting").
"""

from __future__ import annotations

import inspect
import itertools
from typing import TYPE_CHECKING, Any, Callable

from evalgap.specs_lang import ast as A

if TYPE_CHECKING:
    from evalgap.verifier.engines.registry import EngineJob

__all__ = ["Shape", "shapes_of", "spec_params", "describe", "shaped_gen_args", "MAX_SHAPES", "MAX_LENGTH"]

#: One length per split list parameter, in parameter order: ``(("array", 2), ("other", 0))``.
Shape = tuple[tuple[str, int], ...]

#: The most shaped runs one requirement is split into (per hash seed).
MAX_SHAPES = 12
#: The longest list length a split covers (a longer range is left to CrossHair's symbolic length).
MAX_LENGTH = 6


def spec_params(job: EngineJob) -> tuple[A.Param, ...] | None:
    """The spec's parameters of ``job``'s check function (a function's, or a scenario's), or None for other
    obligations."""
    req, owner = job.req, job.owner
    if job.ob.kind == "scenario":
        sc = next((c for c in req.clauses if isinstance(c, A.Scenario)), None)
        return sc.params if sc is not None else None
    if job.ob.kind == "function" and isinstance(owner, A.FunctionDecl):
        return owner.params
    return None


def shapes_of(job: EngineJob) -> list[Shape] | None:
    """The shapes to split ``job``'s CrossHair run into, shortest first, or None when the run is not split:
    no list parameter, a list parameter without an integer length range or longer than :data:`MAX_LENGTH`,
    more than :data:`MAX_SHAPES` combinations, or a check function whose parameters are not the spec's
    (constructor arguments, stub picks, a model or an ``explore`` requirement)."""
    if job.ob.kind not in ("function", "scenario") or job.ob.model is not None or job.ob.explore is not None:
        return None
    params = spec_params(job)
    if params is None or [p.name for p in params] != [n for n, _ in job.ob.params]:
        return None
    ranges: list[tuple[str, range]] = []
    for p in params:
        t = p.type
        if t.name not in ("list", "List"):
            continue
        if len(t.args) != 1 or t.length is None:
            return None
        lo, hi = t.length.lo, t.length.hi
        if not (isinstance(lo, int) and isinstance(hi, int)) or isinstance(lo, bool) or isinstance(hi, bool):
            return None
        if lo < 0 or hi < lo or hi > MAX_LENGTH:
            return None
        ranges.append((p.name, range(lo, hi + 1)))
    if not ranges:
        return None
    total = 1
    for _, r in ranges:
        total *= len(r)
    if total > MAX_SHAPES:
        return None
    combos = itertools.product(*(r for _, r in ranges))
    shapes = [tuple(zip([n for n, _ in ranges], combo)) for combo in combos]
    return sorted(shapes, key=lambda s: (sum(k for _, k in s), s))


def describe(shape: Shape) -> str:
    """``"len(array) == 2, len(other) == 0"``."""
    return ", ".join(f"len({name}) == {k}" for name, k in shape)


def shaped_gen_args(original: Callable[[inspect.Signature], inspect.BoundArguments], shape: Shape,
                    params: tuple[str, ...]) -> Callable[[inspect.Signature], inspect.BoundArguments]:
    """A replacement for ``crosshair.core.gen_args`` (CrossHair's creation of a call's symbolic arguments)
    that, for a signature whose parameters are exactly ``params`` (the check function's), makes each list
    parameter of ``shape`` a concrete list of that many symbolic elements of the annotation's element type
    (``Any`` without one) and leaves every other parameter (and every other signature: constructors) to
    ``original``. Called by CrossHair with tracing off. The shape is a tuple fixed when this is made (the
    worker's tamper check snapshots this function's closure)."""
    from typing import get_args  # bound now, before the target's import-time code could replace it

    from crosshair.core import proxy_for_type
    from crosshair.statespace import context_statespace

    lengths = tuple(shape)  # immutable, as every cell of this closure: the tamper check compares identities
    split = frozenset(name for name, _ in lengths)
    expected = tuple(params)

    def gen_args(sig: inspect.Signature) -> inspect.BoundArguments:
        if tuple(sig.parameters) != expected:
            return original(sig)
        rest = sig.replace(parameters=[p for p in sig.parameters.values() if p.name not in split])
        made = original(rest)
        out = sig.bind_partial()
        space: Any = context_statespace()
        for p in sig.parameters.values():
            if p.name not in split:
                out.arguments[p.name] = made.arguments[p.name]
                continue
            n = next(k for name, k in lengths if name == p.name)
            args = get_args(p.annotation)
            elem: Any = args[0] if len(args) == 1 else Any
            out.arguments[p.name] = [proxy_for_type(elem, f"{p.name}_{i}{space.uniq()}", allow_subtypes=True)
                                     for i in range(n)]
        return out

    return gen_args
