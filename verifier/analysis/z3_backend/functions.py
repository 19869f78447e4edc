"""The analysis queries over one function's requirements (each query with its own fresh solver).

1. vacuous preconditions (the preconditions together can never hold: minimal core);
2. consistency of all requirements (conflict: minimal unsat core, minimized by deletion);
3. vacuous implications (a left side, or a requirement's own ``requires``, that can never be true given
   all requirements);
4. redundancy (a requirement implied by the others; preconditions only by the other preconditions);
5. realizability: ``forall params. pre ==> exists result. post``, refuted by an input with no allowed result;
6. weak-spec witnesses: a constant result, an argument returned unchanged, the empty collection, an
   ignored argument, and (with ``may raise``) raising an allowed exception on every input. FRET and Hanfor use
   the same consistency, vacuity and realizability notions.

With ``may raise`` the call's outcome is part of the model (``FunctionModel.raised``): an input on which the
call may raise an allowed class is realizable, and the constant-result witnesses are about normal returns.
"""

from __future__ import annotations

from dataclasses import replace

import z3

from evalgap.translators.to_z3 import FunctionModel, Ty, Z3Requirement, sort_of
from evalgap.verifier.analysis.spec_findings import SpecFinding
from evalgap.verifier.analysis.z3_backend.solver import fmt_value, minimal_core, py_value, solve
from evalgap.specs_lang.diagnostics import (APPROXIMATED, CONFLICT, CONSISTENT, NOT_IN_FRAGMENT, REALIZABLE,
                                            REDUNDANT, SOLVER_UNKNOWN, UNREALIZABLE, VACUOUS_IMPLICATION,
                                            VACUOUS_PRECONDITION, WEAK_SPEC_WITNESS)

__all__ = ["analyze_function"]


def _prose(reqs: dict[str, Z3Requirement], ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f'{i}: "{reqs[i].prose}"' for i in ids)


def _call(m: FunctionModel, model: z3.ModelRef) -> str:
    args = ", ".join(fmt_value(py_value(model, c, ty)) for _, ty, c in m.params)
    return f"{m.name}({args})"


def _unknown(scope: str, ids: tuple[str, ...], what: str, reason: str, dt: float,
             severity: str = "unknown") -> SpecFinding:
    return SpecFinding(SOLVER_UNKNOWN, "unknown", severity, scope, ids, f"{what}: unknown ({reason})", elapsed_s=dt)


def _constants(ty: Ty) -> list[tuple[z3.ExprRef, str]]:
    k = ty.kind
    if k == "int":
        return [(z3.IntVal(0), "0")]
    if k == "real":
        return [(z3.RealVal(0), "0.0")]
    if k == "bool":
        return [(z3.BoolVal(False), "False"), (z3.BoolVal(True), "True")]
    if k == "str":
        return [(z3.StringVal(""), "''")]
    if k == "seq":
        return [(z3.Empty(sort_of(ty)), "[]")]
    if k == "set":
        return [(z3.EmptySet(sort_of(ty.args[0])), "set()")]
    return []


def _interesting(m: FunctionModel) -> list[z3.BoolRef]:
    """Soft wishes for a witness input that makes the wrong behaviour obvious (non-trivial values)."""
    out: list[z3.BoolRef] = []
    for _, ty, c in m.params:
        if ty.kind == "seq":
            out += [z3.Length(c) == 2, c[0] != c[1]]
            if ty.args[0].kind in ("int", "real"):
                out += [c[0] > c[1], c[0] <= 9, c[1] >= 0]
        elif ty.kind == "str":
            out.append(z3.Length(c) >= 1)
        elif ty.kind in ("int", "real"):
            out += [c != 0, c <= 9, c >= -9]
    nums = [c for _, ty, c in m.params if ty.kind in ("int", "real")]
    if len(nums) >= 2 and all(c.sort() == nums[0].sort() for c in nums):
        out.append(z3.Distinct(*nums))  # `f(1, -1, 2)`, not `f(-1, -1, -1)`: which argument came back shows
    return out


def _own_pres(m: FunctionModel) -> list[z3.BoolRef]:
    """The postconditions' own ``requires`` (a requirement says nothing about inputs outside them): a witness
    input should meet them, or it shows a call the requirement does not cover."""
    return [r.pre for r in m.of_role("postcondition") if r.pre is not None and not z3.is_true(r.pre)]


def _example_input(m: FunctionModel, pres: list[z3.BoolRef], extra: list[z3.BoolRef],
                   timeout_s: float) -> z3.ModelRef | None:
    own = _own_pres(m)
    wishes = ([own + _interesting(m), own] if own else []) + [_interesting(m), []]
    for wish in wishes:
        r = solve(pres + extra + wish, timeout_s)
        if r.status == "sat":
            return r.model
    return None


def _raising_witnesses(m: FunctionModel, scope: str, pres: list[z3.BoolRef], posts: list[Z3Requirement],
                       timeout_s: float) -> list[SpecFinding]:
    """A ``may raise`` class that every postcondition allows on every input: the spec admits a function that
    always raises it."""
    if m.raised is None or not posts:
        return []
    exc, names = m.raised
    post = z3.And(*[r.formula for r in posts])
    ids = tuple(r.id for r in posts)
    for k, name in enumerate(names, 1):
        fixed = [z3.substitute(p, (exc, z3.IntVal(k))) for p in pres]  # the outcome is fixed: no free range
        r = solve(fixed + [z3.Not(z3.substitute(post, (exc, z3.IntVal(k))))], timeout_s)
        if r.status == "unsat":
            mod = _example_input(m, pres, [], timeout_s)
            call = _call(m, mod) if mod is not None else f"{m.name}(...)"
            return [SpecFinding(WEAK_SPEC_WITNESS, "witness", "warning", scope, ids,
                                f"`{call}` may raise {name} under this spec: raising it on every input meets all "
                                f"postconditions (may raise {name})", witness=f"{call} -> raises {name}",
                                elapsed_s=r.elapsed_s)]
    return []


def _witnesses(m: FunctionModel, scope: str, pres: list[z3.BoolRef], posts: list[Z3Requirement],
               timeout_s: float) -> list[SpecFinding]:
    assert m.result is not None
    rty, rc = m.result
    post = z3.And(*[r.formula for r in posts])
    if m.raised is not None:  # the result witnesses are about calls that return normally
        post = z3.substitute(post, (m.raised[0], z3.IntVal(0)))
        pres = [z3.substitute(p, (m.raised[0], z3.IntVal(0))) for p in pres]
    ids = tuple(r.id for r in posts)
    out: list[SpecFinding] = []
    if not posts:
        if any(r.role == "postcondition" for r in m.requirements):
            return out  # postconditions exist but are outside the fragment (reported as unknown)
        mod = _example_input(m, pres, [], timeout_s)
        call = _call(m, mod) if mod is not None else f"{m.name}(...)"
        return [SpecFinding(WEAK_SPEC_WITNESS, "witness", "warning", scope, (), f"`{call}` may return anything: "
                            f"{m.name} has no postcondition", witness=call)]
    if not m.params:
        return out
    found_const = False
    for term, text in _constants(rty):
        r = solve(pres + [z3.Not(z3.substitute(post, (rc, term)))], timeout_s)
        if r.status == "unsat":
            found_const = True
            mod = _example_input(m, pres, [], timeout_s)
            call = _call(m, mod) if mod is not None else f"{m.name}(...)"
            what = "the empty collection" if text in ("[]", "''", "set()") else f"the constant {text}"
            out.append(SpecFinding(WEAK_SPEC_WITNESS, "witness", "warning", scope, ids,
                                   f"`{call}` may return `{text}` under this spec: returning {what} for every "
                                   "input meets all postconditions", witness=f"{call} -> {text}",
                                   elapsed_s=r.elapsed_s))
            break
        if r.status == "unknown":
            out.append(_unknown(scope, ids, f"weak-spec query (constant {text})", r.reason, r.elapsed_s, "info"))
    if not found_const:
        c = z3.FreshConst(sort_of(rty), "k")
        body = z3.substitute(post, (rc, c))
        params = [p for _, _, p in m.params]
        r = solve([z3.ForAll(params, z3.Implies(z3.And(*pres), body))], timeout_s)
        if r.status == "sat" and r.model is not None:
            text = fmt_value(py_value(r.model, c, rty))
            mod = _example_input(m, pres, [], timeout_s)
            call = _call(m, mod) if mod is not None else f"{m.name}(...)"
            out.append(SpecFinding(WEAK_SPEC_WITNESS, "witness", "warning", scope, ids,
                                   f"`{call}` may return `{text}` under this spec: returning the constant {text} "
                                   "for every input meets all postconditions", witness=f"{call} -> {text}",
                                   elapsed_s=r.elapsed_s))
            found_const = True
    for name, ty, c in m.params:
        if ty != rty:
            continue
        r = solve(pres + [z3.Not(z3.substitute(post, (rc, c)))], timeout_s)
        if r.status == "unsat":
            mod = _example_input(m, pres, [], timeout_s)
            call = _call(m, mod) if mod is not None else f"{m.name}(...)"
            shown = fmt_value(py_value(mod, c, ty)) if mod is not None else name
            out.append(SpecFinding(WEAK_SPEC_WITNESS, "witness", "warning", scope, ids,
                                   f"`{call}` may return `{shown}` under this spec: returning the argument "
                                   f"`{name}` unchanged meets all postconditions", witness=f"{call} -> {shown}",
                                   elapsed_s=r.elapsed_s))
    if not found_const and len(m.params) >= 2:
        for name, _, c in m.params:
            # the spec lets f ignore `name` iff forall others exists r forall name: pre ==> post;
            # refuted by: exists others forall r exists name: pre and not post
            r = solve([z3.ForAll([rc], z3.Exists([c], z3.And(z3.And(*pres), z3.Not(post))))], timeout_s)
            if r.status == "unsat":
                out.append(SpecFinding(WEAK_SPEC_WITNESS, "witness", "warning", scope, ids,
                                       f"{m.name} may ignore its argument `{name}`: for every value of the other "
                                       f"arguments one result meets all postconditions whatever `{name}` is",
                                       elapsed_s=r.elapsed_s))
            elif r.status == "unknown":
                out.append(_unknown(scope, ids, f"weak-spec query (ignoring `{name}`)", r.reason, r.elapsed_s,
                                    "info"))
    return out


def _consistent_text(m: FunctionModel, allr: list[Z3Requirement], det: str) -> str:
    own = sum(not r.derived for r in allr)
    if own == len(allr):
        return f"the {own} analysed requirements on {m.name} can hold together{det}"
    if own == 0:
        return f"the class invariants can hold before and after a call of {m.name}"
    return f"the {own} analysed requirements on {m.name} can hold together with the class invariants{det}"


def analyze_function(m: FunctionModel, timeout_s: float) -> list[SpecFinding]:
    """Run every query on one function model.

    Args:
        m: the model from :func:`evalgap.translators.to_z3.build_function_models`.
        timeout_s: per solver call, seconds.

    Returns:
        Findings in query order: unknowns for untranslated requirements, then vacuity of preconditions,
        consistency, vacuous implications, redundancy, realizability, weak-spec witnesses.
    """
    scope = f"function {m.name}"
    out: list[SpecFinding] = []
    reqs = {r.id: r for r in m.requirements}
    for r in m.requirements:
        if r.unsupported:
            out.append(SpecFinding(NOT_IN_FRAGMENT, "unknown", "unknown", scope, (r.id,), f"{r.id}: unknown ({r.unsupported})"))
        for note in r.notes:
            out.append(SpecFinding(APPROXIMATED, "approximated", "info", scope, (r.id,), f"{r.id}: approximated ({note})"))
    if m.signature_problem:
        return out
    pres = m.of_role("assume") + m.of_role("precondition")
    posts = m.of_role("postcondition")
    allr = pres + posts
    ax = list(m.axioms)
    if not allr:
        return out
    pre_terms: list[z3.BoolRef] = ax + [r.formula for r in pres]
    if ax and solve(ax, timeout_s).status == "unsat":
        return out + [SpecFinding(VACUOUS_PRECONDITION, "vacuous", "warning", scope, (),
                                  f"the parameter types of {m.name} (ranges, lengths, alphabets) admit no input, "
                                  "so every requirement holds vacuously")]
    if pres:
        c = minimal_core([(r.id, r.formula) for r in pres], timeout_s, ax)
        if c.status == "unsat":
            return out + [SpecFinding(VACUOUS_PRECONDITION, "vacuous", "warning", scope, c.core,
                                      "the preconditions can never hold together, so every requirement on "
                                      f"{m.name} holds vacuously", _prose(reqs, c.core), elapsed_s=c.elapsed_s)]
        if c.status == "unknown":
            out.append(_unknown(scope, tuple(r.id for r in pres), "preconditions", c.reason, c.elapsed_s))
    # a requirement calling the function itself is read with `result` equal to that call on the same arguments
    det = f" (taking {m.name} to be deterministic)" if m.self_calls else ""
    c = minimal_core([(r.id, r.formula) for r in allr], timeout_s, ax)
    if c.status == "unsat":
        if len(c.core) == 1:
            what = f"{c.core[0]} can never hold{det}"
        else:
            how = "minimal: removing any one makes the rest consistent" if c.minimal else "may not be minimal"
            what = f"{', '.join(c.core)} cannot all hold ({how}){det}"
        return out + [SpecFinding(CONFLICT, "conflict", "error", scope, c.core, f"conflict: {what}",
                                  _prose(reqs, c.core), elapsed_s=c.elapsed_s)]
    if c.status == "unknown":
        return out + [_unknown(scope, tuple(r.id for r in allr), "consistency", c.reason, c.elapsed_s)]
    if c.model is not None and _own_pres(m):  # a witness inside the requirements' own preconditions
        inside = solve(ax + [r.formula for r in allr] + _own_pres(m), timeout_s)
        if inside.status == "sat" and inside.model is not None:
            c = replace(c, model=inside.model)
    wit = _call(m, c.model) if c.model is not None else ""
    k = c.model.eval(m.raised[0], model_completion=True).as_long() if c.model is not None and m.raised else 0
    if k:
        wit += f" -> raises {m.raised[1][k - 1]}" if m.raised else ""
    elif c.model is not None and m.result is not None:
        wit += f" -> {fmt_value(py_value(c.model, m.result[1], m.result[0]))}"
    out.append(SpecFinding(CONSISTENT, "consistent", "info", scope, tuple(r.id for r in allr),
                           _consistent_text(m, allr, det),
                           witness=wit or None, elapsed_s=c.elapsed_s))
    for r in allr + m.of_role("raises"):
        others = ax + [o.formula for o in allr if o is not r]
        for text, cond in r.antecedents:
            v = solve(others + [cond], timeout_s)
            if v.status == "unsat":
                out.append(SpecFinding(VACUOUS_IMPLICATION, "vacuous", "warning", scope, (r.id,),
                                       f"{r.id}: the condition `{text}` can never be true given the other requirements, "
                                       "so the requirement holds vacuously", _prose(reqs, (r.id,)),
                                       elapsed_s=v.elapsed_s))
            elif v.status == "unknown":
                out.append(_unknown(scope, (r.id,), f"vacuity of `{text}`", v.reason, v.elapsed_s))
    for r in allr:
        others = [o.formula for o in (pres if r.role == "precondition" else allr) if o is not r]
        if not others or r.derived:
            continue
        v = solve(ax + others + [z3.Not(r.formula)], timeout_s)
        if v.status == "unsat":
            out.append(SpecFinding(REDUNDANT, "redundant", "info", scope, (r.id,),
                                   f"{r.id} is implied by the other "
                                   + ("preconditions and the parameter types" if r.role in ("precondition", "assume")
                                      else "requirements"),
                                   _prose(reqs, (r.id,)), elapsed_s=v.elapsed_s))
    if m.result is None or m.self_calls:
        if m.self_calls:
            out.append(SpecFinding(SOLVER_UNKNOWN, "unknown", "info", scope, tuple(r.id for r in posts),
                                   f"realizability and weak-spec witnesses not decided: a requirement calls "
                                   f"{m.name} itself"))
        return out
    rty, rc = m.result
    realizable = True
    if posts:
        post = z3.And(*[r.formula for r in posts])
        # with `may raise`, an allowed exception is an outcome as good as a result
        outcome: list[z3.ExprRef] = [rc] if m.raised is None else [rc, m.raised[0]]
        if m.raised is not None:
            exc, names = m.raised
            post = z3.And(exc >= 0, exc <= len(names), post)
        v = solve(pre_terms + [z3.ForAll(outcome, z3.Not(post))], timeout_s)
        ids = tuple(r.id for r in posts)
        if v.status == "sat" and v.model is not None:
            realizable = False
            call = _call(m, v.model)
            out.append(SpecFinding(UNREALIZABLE, "unrealizable", "error", scope, ids,
                                   f"unrealizable: `{call}` meets the preconditions but no result meets "
                                   f"{', '.join(ids)}", _prose(reqs, ids), witness=call, elapsed_s=v.elapsed_s))
        elif v.status == "unsat":
            allowed = f" (or may raise {', '.join(m.raised[1])})" if m.raised else ""
            out.append(SpecFinding(REALIZABLE, "realizable", "info", scope, ids,
                                   f"realizable: every input meeting the preconditions has an allowed result{allowed}",
                                   elapsed_s=v.elapsed_s))
        else:
            out.append(_unknown(scope, ids, "realizability", v.reason, v.elapsed_s))
    if realizable:
        out += _witnesses(m, scope, pre_terms, posts, timeout_s)
        out += _raising_witnesses(m, scope, pre_terms, posts, timeout_s)
    return out
