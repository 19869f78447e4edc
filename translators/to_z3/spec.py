"""Whole-spec models for the Z3 analysis: one :class:`FunctionModel` per ``function`` block.

Meaning of a function's requirements (the same as the icontract harness, translators/to_icontract.py):

* a requirement made only of ``requires`` clauses is a **precondition**; its formula is the conjunction;
* any other requirement is a **postcondition** ``own requires ==> all its ensures`` over the parameters
  and ``result`` (a Z3 constant of the return type);
* calls of target functions (also the function itself, in metamorphic requirements) are uninterpreted
  functions;
* ``may raise EXC, ...``: when any requirement of the function allows exceptions, the call's outcome is an
  integer ``eg_raised`` (0: it returns normally, ``k``: it raises the ``k``-th class named by a ``may raise`` of
  the function, compared by name); a requirement is then ``pre ==> (eg_raised == 0 and post)`` or, with
  ``may raise``, ``pre ==> (eg_raised == 0 and post) or eg_raised in its classes``.

Every requirement that cannot be translated keeps its reason (``not in the Z3 fragment: <construct>``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

import z3

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import inline_lets
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.pyexpr import to_python
from evalgap.translators.to_z3.context import SpecContext, calls_name, narrowing, record_narrowing, spec_context
from evalgap.translators.to_z3.expr import FuncSig
from evalgap.translators.to_z3.types import RecordSchema, Ty, sort_of, ty_from_ref
from evalgap.translators.to_z3.values import Val

__all__ = ["Z3Requirement", "FunctionModel", "build_function_models", "antecedent_sites", "function_sigs",
           "requirement_model"]


@dataclass(frozen=True)
class Z3Requirement:
    """One requirement in Z3 form.

    Attributes:
        id, prose, span: from the spec.
        role: ``precondition``, ``postcondition``, ``assume``, ``raises`` (exceptional behaviour: its
            ``when`` conditions are checked for vacuity), ``rule`` (config), or ``informal``.
        formula: the requirement as a constraint (None when not translated or informal).
        pre: for a postcondition, its own ``requires`` (True when none); for a precondition, the formula.
        post: for a postcondition, the conjunction of its ``ensures``.
        antecedents: ``(text, condition)`` for each implication's left side and each own precondition:
            the condition is satisfiable iff the left side can be true (used by the vacuity query).
        unsupported: ``not in the Z3 fragment: <construct>`` when the translation failed.
        notes: approximations made (floats as reals ...).
        may_raise: the classes a ``may raise`` clause of the requirement allows (the report lists them among
            what narrows the requirement).
        derived: a copy of another requirement read in this context (a class invariant before or after a
            method call): not itself checked for redundancy or vacuity, its ID carries a suffix.
    """

    id: str
    prose: str
    role: str
    span: A.Span
    formula: z3.BoolRef | None = None
    pre: z3.BoolRef | None = None
    post: z3.BoolRef | None = None
    antecedents: tuple[tuple[str, z3.BoolRef], ...] = ()
    unsupported: str | None = None
    notes: tuple[str, ...] = ()
    may_raise: tuple[str, ...] = ()
    derived: bool = False


@dataclass(frozen=True)
class FunctionModel:
    """A function block in Z3 form.

    Attributes:
        name: the function's name.
        params: ``(name, type, Z3 constant)`` per parameter.
        result: ``(type, Z3 constant)`` of ``result``, or None (no or unsupported return type).
        requirements: one per requirement of the block, in order.
        self_calls: True when a requirement calls the function itself (metamorphic requirements);
            realizability and weak-spec witnesses are then not decided.
        signature_problem: why the parameters or result are outside the fragment, if they are.
        raised: when a requirement has ``may raise``, the outcome constant ``eg_raised`` and the class names it
            ranges over (``k`` names ``names[k - 1]``; 0 is a normal return); else None.
    """

    name: str
    params: tuple[tuple[str, Ty, z3.ExprRef], ...]
    result: tuple[Ty, z3.ExprRef] | None
    requirements: tuple[Z3Requirement, ...]
    self_calls: bool = False
    signature_problem: str | None = None
    axioms: tuple[z3.BoolRef, ...] = field(default=())
    raised: tuple[z3.ArithRef, tuple[str, ...]] | None = None

    def of_role(self, role: str) -> list[Z3Requirement]:
        """The translated requirements with ``role``."""
        return [r for r in self.requirements if r.role == role and r.formula is not None]


def antecedent_sites(e: A.Expr) -> Iterator[A.Expr]:
    """For each implication ``L ==> R`` in ``e`` (through ``and``, ``forall`` and right sides of
    implications), an expression that is satisfiable iff ``L`` can be true in its context:
    ``forall x in S: L ==> R`` yields ``exists x in S: L``."""
    def walk(node: A.Expr, wrap: Callable[[A.Expr], A.Expr]) -> Iterator[A.Expr]:
        w = wrap
        if isinstance(node, A.Implies):
            yield w(node.left)
            yield from walk(node.right, lambda x: w(A.BoolOp("and", (node.left, x), node.span)))
        elif isinstance(node, A.BoolOp) and node.op == "and":
            for v in node.values:
                yield from walk(v, w)
        elif isinstance(node, A.Quantifier) and node.kind == "forall":
            yield from walk(node.body, lambda x: w(A.Quantifier("exists", node.targets, node.domain, x,
                                                                node.span)))
    yield from walk(e, lambda x: x)


def function_sigs(spec: A.Spec, records: Mapping[str, RecordSchema] | None = None) -> dict[str, FuncSig]:
    """Uninterpreted-function signatures of the spec's functions whose types are in the fragment."""
    out: dict[str, FuncSig] = {}
    for f in spec.functions:
        try:
            ptys = tuple(ty_from_ref(p.type, records) for p in f.params)
            rty = ty_from_ref(f.returns, records) if f.returns is not None else None
        except UnsupportedConstruct:
            continue
        if rty is None:
            continue
        decl = z3.Function(f"f_{f.name}", *[sort_of(t) for t in ptys], sort_of(rty))
        out[f.name] = FuncSig(f.name, ptys, rty, decl)
    return out


def _may_raise(req: A.Requirement) -> tuple[str, ...]:
    return tuple(dict.fromkeys(e for c in req.clauses if isinstance(c, A.MayRaise) for e in c.exceptions))


def _outcome(post: z3.BoolRef, may: tuple[str, ...], raised: tuple[z3.ArithRef, tuple[str, ...]] | None) -> z3.BoolRef:
    """``post`` read as the normal-return part of the call's outcome (see the module docstring)."""
    if raised is None:
        return post
    exc, names = raised
    allowed = [exc == names.index(e) + 1 for e in may]
    return z3.Or(z3.And(exc == 0, post), *allowed) if allowed else z3.And(exc == 0, post)


def requirement_model(req: A.Requirement, env: dict[str, Val], ctx: SpecContext, raises_when: list[A.Expr],
                      raised: tuple[z3.ArithRef, tuple[str, ...]] | None = None) -> Z3Requirement:
    """One requirement of a function or method in Z3 form over ``env`` (parameters, ``result``, ``self``);
    ``raises_when`` are the ``when`` conditions of the block (an ``ensures`` is read where none holds);
    ``raised``: the call's outcome variable and the ``may raise`` classes of the function, or None."""
    if req.informal is not None:
        return Z3Requirement(req.id, req.prose, "informal", req.span)
    requires = [c for c in req.clauses if isinstance(c, A.Requires)]
    ensures = [c for c in req.clauses if isinstance(c, A.Ensures)]
    raises = [c for c in req.clauses if isinstance(c, A.Raises)]
    may = _may_raise(req)
    others = [c for c in req.clauses if not isinstance(c, (A.Requires, A.Ensures, A.Let, A.Raises, A.MayRaise))]
    role = "precondition" if requires and not ensures and not raises else "postcondition"
    if raises and not ensures:
        role = "raises"
    if others:
        kind = type(others[0]).__name__.lower()
        return Z3Requirement(req.id, req.prose, role, req.span,
                             unsupported=f"not in the Z3 fragment: {kind} clause")
    t = ctx.translator(dict(env))
    try:
        pre_parts: list[z3.BoolRef] = []
        post_parts: list[z3.BoolRef] = []
        sites: list[tuple[str, z3.BoolRef]] = []
        for c in req.clauses:
            if isinstance(c, A.Let):
                t.let(c.name, c.value)
            elif isinstance(c, A.Requires):
                pre_parts.append(t.formula(c.expr))
                if role == "precondition":
                    sites += [(to_python(x), t.formula(x)) for x in antecedent_sites(c.expr)]
            elif isinstance(c, A.Ensures):
                post_parts.append(t.formula(c.expr))
                sites += [(to_python(x), t.formula(x)) for x in antecedent_sites(c.expr)]
            elif isinstance(c, A.Raises):
                sites.append((f"raises {c.exception} when {to_python(c.when)}", t.formula(c.when)))
        pre = z3.And(*pre_parts)
        if role == "precondition":
            return Z3Requirement(req.id, req.prose, role, req.span, pre, pre, None, tuple(sites),
                                 notes=tuple(t.notes))
        if role == "raises":
            # exceptional behaviour: not a constraint on `result`; its conditions are checked for vacuity
            return Z3Requirement(req.id, req.prose, role, req.span, z3.BoolVal(True), pre, None, tuple(sites),
                                 notes=tuple(t.notes))
        if requires:
            sites.insert(0, (" and ".join(to_python(c.expr) for c in requires), pre))
        post = z3.And(*post_parts)
        post = _outcome(post, may, raised)
        if raises_when:  # inputs on which the function must raise have no result to constrain
            post = z3.Implies(z3.Not(z3.Or(*[t.formula(w) for w in raises_when])), post)
        return Z3Requirement(req.id, req.prose, role, req.span, z3.Implies(pre, post), pre, post, tuple(sites),
                             notes=tuple(t.notes), may_raise=may)
    except UnsupportedConstruct as exc:
        return Z3Requirement(req.id, req.prose, role, req.span,
                             unsupported=f"not in the Z3 fragment: {exc.construct}")


def _assume(a: A.Assume, env: dict[str, Val], ctx: SpecContext) -> Z3Requirement:
    t = ctx.translator(dict(env))
    try:
        f = t.formula(a.expr)
        return Z3Requirement(a.id, a.prose, "assume", a.span, f, f, None,
                             tuple((to_python(x), t.formula(x)) for x in antecedent_sites(a.expr)),
                             notes=tuple(t.notes))
    except UnsupportedConstruct as exc:
        return Z3Requirement(a.id, a.prose, "assume", a.span, unsupported=f"not in the Z3 fragment: {exc.construct}")


def build_function_models(spec: A.Spec, ctx: SpecContext | None = None) -> list[FunctionModel]:
    """A :class:`FunctionModel` per ``function`` block of ``spec``.

    Args:
        spec: a parsed, structurally checked spec.
        ctx: its shared declarations (records, helpers, lets, assumptions); built when None.

    Returns:
        The models, in source order; a block whose signature is outside the fragment gets every
        requirement marked unsupported with the reason. ``assume`` declarations whose names the function's
        parameters bind are included with role ``assume`` (they act as preconditions); type narrowings
        (``int in 0..10``) are the model's ``axioms``.
    """
    ctx = ctx or spec_context(spec)
    out = []
    for f in spec.functions:
        try:
            params = tuple((p.name, ty_from_ref(p.type, ctx.records)) for p in f.params)
            rty = ty_from_ref(f.returns, ctx.records) if f.returns is not None and str(f.returns) != "None" else None
        except UnsupportedConstruct as exc:
            why = f"not in the Z3 fragment: {exc.construct}"
            reqs = tuple(Z3Requirement(r.id, r.prose, "informal" if r.informal else "postcondition", r.span,
                                       unsupported=None if r.informal else why) for r in f.requirements)
            out.append(FunctionModel(f.name, (), None, reqs, signature_problem=why))
            continue
        consts = tuple((n, ty, z3.Const(n, sort_of(ty))) for n, ty in params)
        env = {n: Val(ty, c) for n, ty, c in consts}
        axioms: list[z3.BoolRef] = []
        for p, (_, ty, c) in zip(f.params, consts):
            axioms += narrowing(p.type, ty, c) + record_narrowing(ctx, ty, c)
        result = None
        if rty is not None:
            result = (rty, z3.Const("result", sort_of(rty)))
            env["result"] = Val(rty, result[1])
            if f.returns is not None:
                axioms += record_narrowing(ctx, rty, result[1])
        # a requirement's own `let`s are substituted: the conditions are read in other requirements too
        raises_when = [c.when for r in f.requirements for c in inline_lets(r.clauses) if isinstance(c, A.Raises)]
        assumes = [_assume(a, env, ctx) for a in ctx.assumes_for({p.name for p in f.params})]
        lists = {_may_raise(r) for r in f.requirements if r.informal is None} - {()}
        names = tuple(dict.fromkeys(e for r in f.requirements for e in _may_raise(r)))
        raised = (z3.Int("eg_raised"), names) if names else None
        if raised is not None:
            axioms += [raised[0] >= 0, raised[0] <= len(names)]
        reqs = tuple(assumes) + tuple(requirement_model(r, env, ctx, raises_when, raised) for r in f.requirements)
        if len(lists) > 1:  # different allow-lists: a subclass relation between their classes is not modelled
            why = "`may raise` classes are compared by name (a subclass relation between them is not modelled)"
            reqs = tuple(dataclasses.replace(r, notes=r.notes + (why,)) if r.may_raise else r for r in reqs)
        self_calls = calls_name(f.requirements, f.name)
        sig = ctx.functions.get(f.name)
        if self_calls and result is not None and sig is not None:
            # a requirement that calls the function itself sees the same function: the call on the block's
            # own parameters returns `result` (the function is taken to be deterministic)
            axioms.append(result[1] == sig.decl(*[c for _, _, c in consts]))
        out.append(FunctionModel(f.name, consts, result, reqs, self_calls=self_calls, axioms=tuple(axioms),
                                 raised=raised))
    return out
