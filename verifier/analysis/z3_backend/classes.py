"""The analysis queries over one class's requirements (translators/to_z3/classes.py builds the models).

1. the invariants: consistency (a minimal unsat core: no object can satisfy them together), vacuous
   implications, redundancy among them;
2. each method with requirements: the function queries (verifier.analysis.z3_backend.functions) over the
   state before and after the call, the invariants assumed before and required after a normal return
   (a conflict naming ``AC-1 (after the call)`` says the method's contract cannot keep the invariant).

Requirements reading a field whose type the spec does not show, and clauses outside the fragment, are
EG308 one by one; the numeric fields' modelling as reals is an EG310 note.
"""

from __future__ import annotations

from dataclasses import replace

from evalgap.specs_lang.diagnostics import (APPROXIMATED, CONFLICT, CONSISTENT, NOT_IN_FRAGMENT, REDUNDANT,
                                            VACUOUS_IMPLICATION)
from evalgap.translators.to_z3.classes import AFTER, BEFORE, ClassModel
from evalgap.translators.to_z3.types import REAL
from evalgap.verifier.analysis.spec_findings import SpecFinding
from evalgap.verifier.analysis.z3_backend.functions import _unknown, analyze_function
from evalgap.verifier.analysis.z3_backend.solver import minimal_core, solve

__all__ = ["analyze_class"]

_FLOAT_NOTE = "float modelled as real"


def _plain(ids: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for i in ids:
        base = i.removesuffix(BEFORE).removesuffix(AFTER)
        if base not in out:
            out.append(base)
    return tuple(out)


def _unsupported_text(reason: str, m: ClassModel) -> str:
    for f in m.unmodelled:
        if f"attribute .{f} of {m.name}_state" in reason or f"attribute .{f} of None" in reason:
            return (f"not in the Z3 fragment: `self.{f}` (its type cannot be read from the requirements: it is "
                    "not only compared with numbers or strings)")
    return reason


def analyze_class(m: ClassModel, timeout_s: float) -> list[SpecFinding]:
    """Run the class queries on one class model.

    Args:
        m: from :func:`evalgap.translators.to_z3.classes.build_class_models`.
        timeout_s: per solver call, seconds.

    Returns:
        Findings: unknowns and notes, then the invariants' queries, then each method's (scope
        ``class C`` and ``method C.m``; requirement IDs without the before/after suffixes).
    """
    scope = f"class {m.name}"
    out: list[SpecFinding] = []
    for r in (*m.invariants, *m.others):
        if r.unsupported:
            out.append(SpecFinding(NOT_IN_FRAGMENT, "unknown", "unknown", scope, (r.id,),
                                   f"{r.id}: unknown ({_unsupported_text(r.unsupported, m)})"))
        for note in r.notes:
            if note.startswith(_FLOAT_NOTE) and any(ty == REAL for _, ty in m.fields):
                continue  # said once below, for the fields
            out.append(SpecFinding(APPROXIMATED, "approximated", "info", scope, (r.id,), f"{r.id}: approximated ({note})"))
    nums = [f for f, ty in m.fields if ty == REAL]
    if nums:
        out.append(SpecFinding(APPROXIMATED, "approximated", "info", scope, (),
                               "approximated (" + ", ".join(f"self.{f}" for f in nums) + " modelled as real numbers: "
                               "the spec declares no field types; a conflict, vacuity or redundancy found over the "
                               "reals also holds over the integers)"))
    invs = [r for r in m.invariants if r.formula is not None]
    reqs = {r.id: r for r in invs}
    if invs:
        c = minimal_core([(r.id, r.formula) for r in invs if r.formula is not None], timeout_s)
        if c.status == "unsat":
            what = f"{c.core[0]} can never hold" if len(c.core) == 1 else f"{', '.join(c.core)} cannot all hold"
            return out + [SpecFinding(CONFLICT, "conflict", "error", scope, c.core,
                                      f"conflict: {what}: no object of {m.name} satisfies the invariants",
                                      tuple(f'{i}: "{reqs[i].prose}"' for i in c.core), elapsed_s=c.elapsed_s)]
        if c.status == "unknown":
            out.append(_unknown(scope, tuple(reqs), "consistency of the invariants", c.reason, c.elapsed_s))
        else:
            out.append(SpecFinding(CONSISTENT, "consistent", "info", scope, tuple(reqs),
                                   f"the {len(invs)} analysed invariants of {m.name} can hold together",
                                   elapsed_s=c.elapsed_s))
        for r in invs:
            others = [o.formula for o in invs if o is not r and o.formula is not None]
            for text, cond in r.antecedents:
                v = solve(others + [cond], timeout_s)
                if v.status == "unsat":
                    out.append(SpecFinding(VACUOUS_IMPLICATION, "vacuous", "warning", scope, (r.id,),
                                           f"{r.id}: the condition `{text}` can never be true given the other "
                                           "invariants, so the invariant holds vacuously", elapsed_s=v.elapsed_s))
            if others and r.formula is not None:
                from z3 import Not

                v = solve(others + [Not(r.formula)], timeout_s)
                if v.status == "unsat":
                    out.append(SpecFinding(REDUNDANT, "redundant", "info", scope, (r.id,),
                                           f"{r.id} is implied by the other invariants", elapsed_s=v.elapsed_s))
    for fm in m.methods:
        real_params = any(ty == REAL for _, ty, _ in fm.params)
        for f in analyze_function(fm, timeout_s):
            if f.code == APPROXIMATED and _FLOAT_NOTE in f.message and nums and not real_params:
                continue
            ids = _plain(f.requirements)
            if f.code == NOT_IN_FRAGMENT:
                f = replace(f, message=f.message.replace(f.message[f.message.index("(") + 1:-1],
                                                         _unsupported_text(f.message[f.message.index("(") + 1:-1], m))
                            if "(" in f.message else f.message)
            out.append(replace(f, scope=f"method {fm.name}", requirements=ids))
    return out
