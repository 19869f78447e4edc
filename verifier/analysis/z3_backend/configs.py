"""Config queries: consistency of a config's rules, and checking a concrete configuration with the
smallest repair found by Z3's optimizer (fewest fields changed first, then the smallest numeric distance,
lexicographically; Bjørner, Phan, Fleckenstein, "νZ - An Optimizing SMT Solver", TACAS 2015)."""

from __future__ import annotations

import re
import time
from fractions import Fraction
from typing import Any, Sequence

import z3

from evalgap.translators.to_z3.config import ConfigModel, Leaf
from evalgap.verifier.analysis.spec_findings import SpecFinding
from evalgap.verifier.analysis.z3_backend.solver import minimal_core, solve
from evalgap.specs_lang.diagnostics import (APPROXIMATED, CONFIG_REPAIR, CONFIG_VIOLATION, CONFLICT, CONSISTENT,
                                            NOT_IN_FRAGMENT, REDUNDANT, SOLVER_UNKNOWN, VACUOUS_IMPLICATION)

__all__ = ["analyze_config", "check_configuration"]


def analyze_config(m: ConfigModel, timeout_s: float) -> list[SpecFinding]:
    """Consistency (minimal core), vacuous implications and redundancy of a config's rules over all
    configurations of its schema."""
    scope = f"config {m.name}"
    out: list[SpecFinding] = []
    for r in m.rules:
        if r.unsupported:
            out.append(SpecFinding(NOT_IN_FRAGMENT, "unknown", "unknown", scope, (r.id,), f"{r.id}: unknown ({r.unsupported})"))
        for note in r.notes:
            out.append(SpecFinding(APPROXIMATED, "approximated", "info", scope, (r.id,), f"{r.id}: approximated ({note})"))
    rules = [r for r in m.rules if r.formula is not None]
    if not rules:
        return out
    prose = {r.id: r.prose for r in rules}
    c = minimal_core([(r.id, r.formula) for r in rules], timeout_s, m.axioms)
    if c.status == "unsat":
        return out + [SpecFinding(CONFLICT, "conflict", "error", scope, c.core,
                                  f"conflict: {', '.join(c.core)} cannot all hold for any configuration",
                                  tuple(f'{i}: "{prose[i]}"' for i in c.core), elapsed_s=c.elapsed_s)]
    if c.status == "unknown":
        return out + [SpecFinding(SOLVER_UNKNOWN, "unknown", "unknown", scope, tuple(prose), f"consistency: unknown ({c.reason})")]
    out.append(SpecFinding(CONSISTENT, "consistent", "info", scope, tuple(prose),
                           f"the {len(rules)} rules of config {m.name} can hold together", elapsed_s=c.elapsed_s))
    for r in rules:
        others = [o.formula for o in rules if o is not r]
        for text, cond in r.antecedents:
            v = solve(list(m.axioms) + others + [cond], timeout_s)
            if v.status == "unsat":
                out.append(SpecFinding(VACUOUS_IMPLICATION, "vacuous", "warning", scope, (r.id,),
                                       f"{r.id}: the condition `{text}` can never be true given the other rules, "
                                       "so the rule holds vacuously", (f'{r.id}: "{r.prose}"',)))
        if not others:
            continue
        v = solve(list(m.axioms) + others + [z3.Not(r.formula)], timeout_s)
        if v.status == "unsat":
            out.append(SpecFinding(REDUNDANT, "redundant", "info", scope, (r.id,), f"{r.id} is implied by the other rules"))
    return out


def path_matches(path: str, pattern: str) -> bool:
    """Whether a leaf path (``datasets[0].pii``) matches a freeze pattern: ``[*]`` matches any index,
    ``*`` any run of characters other than ``.`` (``datasets[*].pii``, ``*.pii``, ``max_*``)."""
    rx = re.escape(pattern).replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", r"[^.]*")
    return re.fullmatch(rx, path) is not None


def _show(v: Any) -> str:
    return repr(v)


def _model_value(model: z3.ModelRef, leaf: Leaf) -> Any:
    v = model.eval(leaf.var, model_completion=True)
    k = leaf.ty.kind
    if k == "bool":
        return z3.is_true(v)
    if k == "int":
        return v.as_long()
    if k == "real":
        f = Fraction(v.as_fraction())
        return int(f) if f.denominator == 1 and isinstance(leaf.original, int) else float(f)
    return v.as_string()


def _consts(term: z3.ExprRef) -> set[str]:
    out: set[str] = set()
    todo = [term]
    seen: set[int] = set()
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(str(t))
        todo.extend(t.children())
    return out


def check_configuration(m: ConfigModel, timeout_s: float, freeze: Sequence[str] = ()) -> list[SpecFinding]:
    """Check a concrete configuration against its config's rules and propose the smallest repair.

    Args:
        m: a config model built over a concrete configuration (``m.leaves`` non-empty).
        timeout_s: per solver call, seconds.
        freeze: patterns of leaf paths the repair must not change (facts such as ``datasets[*].pii``;
            see :func:`path_matches`). String leaves are never changed by a repair.

    Returns:
        One ``violation`` finding per violated rule (offending elements and values named), then one
        ``repair`` finding (or an error when no configuration of this shape satisfies every rule).
    """
    scope = f"config {m.name}"
    out: list[SpecFinding] = []
    fix = [leaf.var == leaf.original_term() for leaf in m.leaves]
    values = {leaf.path: leaf.original for leaf in m.leaves}
    for leaf in m.leaves:
        if leaf.bounds and solve(fix + [z3.And(*leaf.bounds)], timeout_s).status == "unsat":
            out.append(SpecFinding(CONFIG_VIOLATION, "violation", "error", scope, (), f"{leaf.path} = {leaf.original!r} is "
                                   "outside the range its schema type allows", (f"{leaf.path} = {leaf.original!r}",)))
    rules = [r for r in m.rules if r.formula is not None]
    for r in m.rules:
        if r.unsupported:
            out.append(SpecFinding(NOT_IN_FRAGMENT, "unknown", "unknown", scope, (r.id,), f"{r.id}: unknown ({r.unsupported})"))
    violated = []
    for r in rules:
        v = solve(fix + [z3.Not(r.formula)], timeout_s)
        if v.status == "unknown":
            out.append(SpecFinding(SOLVER_UNKNOWN, "unknown", "unknown", scope, (r.id,), f"{r.id}: unknown ({v.reason})"))
        if v.status != "sat":
            continue
        violated.append(r.id)
        lines: list[str] = []
        bad = [p for p, el in r.elements if solve(fix + [z3.Not(el)], timeout_s).status == "sat"]
        for p in bad:
            shown = ", ".join(f"{k[len(p) + 1:]}={_show(x)}" for k, x in values.items() if k.startswith(p + "."))
            lines.append(f"{p}: {shown}")
        if not bad:
            used = _consts(z3.simplify(r.formula))
            lines += [f"{k} = {_show(x)}" for k, x in values.items() if k in used]
        where = f" by {', '.join(bad)}" if bad else ""
        out.append(SpecFinding(CONFIG_VIOLATION, "violation", "error", scope, (r.id,),
                               f'{r.id} violated{where}: "{r.prose}"', tuple(lines), elapsed_s=v.elapsed_s))
    if not violated and not any(f.kind == "violation" for f in out):
        return out
    out.append(_repair(m, rules, timeout_s, freeze, values, scope))
    return out


def _repair(m: ConfigModel, rules: list[Any], timeout_s: float, freeze: Sequence[str], values: dict[str, Any],
            scope: str) -> SpecFinding:
    t0 = time.monotonic()
    z3.set_param("model_validate", True)
    opt = z3.Optimize()
    opt.set("timeout", max(1, int(timeout_s * 1000)))
    opt.set("priority", "lex")
    opt.set("elim_01", False)  # its 0-1 encoding of bounded ints makes small repairs 20x slower
    # strings are names and identifiers: a repair keeps them (changing them makes the optimizer slow and
    # the proposal meaningless); numbers and booleans may change unless frozen. Kept leaves are replaced by
    # their values, then accessor-of-constructor terms are simplified away.
    frozen = [leaf for leaf in m.leaves if leaf.ty.kind == "str" or any(path_matches(leaf.path, p) for p in freeze)]
    subs = [(leaf.var, leaf.original_term()) for leaf in frozen]
    kept = {leaf.path for leaf in frozen}
    free = [leaf for leaf in m.leaves if leaf.path not in kept]
    hard = [z3.simplify(z3.substitute(f, *subs)) if subs else z3.simplify(f)
            for f in [*m.axioms, *[r.formula for r in rules]]]
    opt.add(*hard)
    for leaf in free:  # objective 1 (MaxSAT): keep as many fields as possible
        opt.add_soft(leaf.var == leaf.original_term(), 1, "fields")
    dist_terms = []
    for leaf in free:
        if leaf.ty.kind in ("int", "real"):
            d = leaf.var - leaf.original_term()
            dist_terms.append(z3.If(d >= 0, d, -d))
    if dist_terms:  # objective 2: the smallest total numeric distance
        opt.minimize(z3.Sum(*dist_terms))
    r = opt.check()
    dt = time.monotonic() - t0
    ids = tuple(x.id for x in rules)
    fro = f" (keeping {', '.join(sorted(set(freeze)))} unchanged)" if freeze else ""
    if r == z3.unsat:
        return SpecFinding(CONFIG_REPAIR, "repair", "error", scope, ids,
                           f"no configuration of this shape satisfies every rule{fro}", elapsed_s=dt)
    if r != z3.sat:
        return SpecFinding(SOLVER_UNKNOWN, "unknown", "unknown", scope, ids,
                           f"repair: unknown ({opt.reason_unknown()})", elapsed_s=dt)
    model = opt.model()
    changes = []
    for leaf in free:
        new = _model_value(model, leaf)
        if new != leaf.original or type(new) is not type(leaf.original):
            if not (isinstance(new, (int, float)) and not isinstance(new, bool) and new == leaf.original):
                changes.append((leaf.path, leaf.original, new))
    # independent re-check of the repaired configuration with a fresh solver
    check = solve([leaf.var == (leaf.original_term() if leaf.path in kept else model.eval(leaf.var, model_completion=True))
                   for leaf in m.leaves] + [r.formula for r in rules] + list(m.axioms), timeout_s)
    ok = "re-checked: the repaired configuration satisfies every rule" if check.status == "sat" else \
        f"re-check of the repair: {check.status} {check.reason}"
    details = tuple(f"{p}: {_show(a)} -> {_show(b)}" for p, a, b in changes) + (ok,)
    return SpecFinding(CONFIG_REPAIR, "repair", "info", scope, ids,
                       f"smallest repair{fro}: change {len(changes)} field(s)", details,
                       witness="; ".join(f"{p} = {_show(b)}" for p, _, b in changes), elapsed_s=dt)
