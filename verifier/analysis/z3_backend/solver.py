"""Solver primitives: one fresh solver per query, a timeout, ``model_validate``, minimal unsat cores
by deletion, and Python renderings of model values."""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import z3

from evalgap.translators.to_z3 import Ty

__all__ = ["SatResult", "solve", "minimal_core", "CoreResult", "py_value", "fmt_value"]


@dataclass(frozen=True)
class SatResult:
    """``status`` is ``sat``, ``unsat`` or ``unknown``; ``model`` for sat; ``reason`` for unknown
    (Z3's ``reason_unknown``: ``timeout``, ``incomplete quantifiers`` ...)."""

    status: str
    model: z3.ModelRef | None
    reason: str
    elapsed_s: float


def _new_solver(timeout_s: float) -> z3.Solver:
    z3.set_param("model_validate", True)  # Z3 re-checks every model it returns against the assertions
    s = z3.Solver()
    s.set("timeout", max(1, int(timeout_s * 1000)))
    return s


def solve(assertions: Sequence[z3.BoolRef], timeout_s: float) -> SatResult:
    """Check the conjunction of ``assertions`` with a fresh solver.

    Args:
        assertions: Z3 Boolean terms.
        timeout_s: wall-clock limit in seconds.

    Returns:
        A :class:`SatResult`.
    """
    s = _new_solver(timeout_s)
    s.add(*assertions)
    t0 = time.monotonic()
    r = s.check()
    dt = time.monotonic() - t0
    if r == z3.sat:
        return SatResult("sat", s.model(), "", dt)
    if r == z3.unsat:
        return SatResult("unsat", None, "", dt)
    return SatResult("unknown", None, s.reason_unknown() or "unknown", dt)


@dataclass(frozen=True)
class CoreResult:
    """Result of a consistency query: ``status`` ``sat``/``unsat``/``unknown``; for unsat, ``core`` (names
    in input order) minimal by deletion unless ``minimal`` is False (a deletion step was unknown)."""

    status: str
    core: tuple[str, ...]
    model: z3.ModelRef | None
    reason: str
    minimal: bool
    elapsed_s: float
    checks: int


def minimal_core(named: Sequence[tuple[str, z3.BoolRef]], timeout_s: float,
                 background: Sequence[z3.BoolRef] = ()) -> CoreResult:
    """Can all ``named`` constraints hold together (with ``background``)? If not, a minimal unsat core.

    The core from Z3's assumption-based check is shrunk by deletion (Marques-Silva, "Minimal Unsatisfiability:
    Models, Algorithms and Applications", ISMVL 2010): drop one member, and if the rest is still unsat keep
    the (smaller) new core; at the end removing any single member makes the rest satisfiable.

    Args:
        named: ``(name, constraint)`` pairs; names must be unique.
        timeout_s: limit per solver call in seconds.
        background: constraints that always hold (never part of the core).

    Returns:
        A :class:`CoreResult`.
    """
    t0 = time.monotonic()
    s = _new_solver(timeout_s)
    s.add(*background)
    lits = {}
    for i, (name, c) in enumerate(named):
        p = z3.Bool(f"__eg_track_{i}")
        lits[name] = p
        s.add(z3.Implies(p, c))
    by_lit = {str(p): n for n, p in lits.items()}
    order = {n: i for i, (n, _) in enumerate(named)}
    checks = 1
    r = s.check(*lits.values())
    if r == z3.sat:
        return CoreResult("sat", (), s.model(), "", True, time.monotonic() - t0, checks)
    if r == z3.unknown:
        return CoreResult("unknown", (), None, s.reason_unknown(), True, time.monotonic() - t0, checks)
    core = sorted({by_lit[str(p)] for p in s.unsat_core()}, key=order.__getitem__)
    minimal = True
    for name in list(core):
        if name not in core:
            continue
        trial = [n for n in core if n != name]
        checks += 1
        r = s.check(*[lits[n] for n in trial])
        if r == z3.unsat:
            smaller = {by_lit[str(p)] for p in s.unsat_core()}
            core = [n for n in trial if n in smaller]
        elif r == z3.unknown:
            minimal = False
    return CoreResult("unsat", tuple(core), None, "", minimal, time.monotonic() - t0, checks)


def py_value(model: z3.ModelRef, term: z3.ExprRef, ty: Ty, limit: int = 12) -> Any:
    """The Python value of ``term`` in ``model`` (model completion on), for showing witnesses.

    Lists longer than ``limit`` are cut (with an ``...`` marker); sets are shown as None (not enumerable).
    """
    v = model.eval(term, model_completion=True)
    k = ty.kind
    if k == "int":
        return v.as_long()
    if k == "bool":
        return z3.is_true(v)
    if k == "real":
        f = Fraction(v.as_fraction()) if z3.is_rational_value(v) else Fraction(0)
        return float(f) if f.denominator != 1 else float(f.numerator)
    if k == "str":
        return v.as_string()
    if k == "seq":
        n = model.eval(z3.Length(term), model_completion=True).as_long()
        out = [py_value(model, term[i], ty.args[0], limit) for i in range(min(n, limit))]
        return out + [...] if n > limit else out
    if k in ("tuple", "record"):
        from evalgap.translators.to_z3.types import field_accessor

        vals = [py_value(model, field_accessor(ty, i)(term), a, limit) for i, a in enumerate(ty.args)]
        return tuple(vals) if k == "tuple" else dict(zip(ty.fields, vals))
    return None


def fmt_value(value: Any) -> str:
    """A Python literal for a value from :func:`py_value` (``...`` marks a cut list)."""
    if isinstance(value, list):
        return "[" + ", ".join("..." if x is ... else fmt_value(x) for x in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={fmt_value(v)}" for k, v in value.items()) + "}"
    return repr(value)
