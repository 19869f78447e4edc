"""Class specs in Z3 form: invariants over the object's fields, and each method's requirements over the
state before and after the call.

The object's state is a record of the fields that the class's requirements read as ``self.NAME``. A spec
declares no field types, so each field's type is read from how the requirements use it:

* compared with, added to or subtracted from a number (a literal, an ``int``/``float`` parameter, ``len()``,
  another numeric field): a **number**, modelled as a real (int and float values alike; an approximation
  the report notes: a conflict, vacuity or redundancy over the reals also holds over the integers, a
  ``consistent`` witness may not be integral);
* compared with or added to a string (a literal or a ``str`` parameter): a ``str``;
* anything else (indexed, iterated, passed to ``len()``, called, no evidence, or conflicting evidence): not
  modelled; a requirement reading it is EG308 (not in the Z3 fragment), never a guess.

A method requirement reads ``requires``, ``raises ... when`` and ``old(...)`` on the state before the call
(``self`` and any list/set argument, which the call may mutate, get a "before" copy) and ``ensures`` on the
state after it. Each invariant is assumed before the call (except for ``__init__``) and required after a
call that returns normally (no ``raises ... when`` of the method holds).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import z3

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import inline_lets, substitute
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.pyexpr import to_python
from evalgap.translators.to_z3.context import SpecContext, narrowing, record_narrowing, spec_context
from evalgap.translators.to_z3.spec import FunctionModel, Z3Requirement, antecedent_sites, requirement_model
from evalgap.translators.to_z3.types import REAL, STR, Ty, sort_of, ty_from_ref
from evalgap.translators.to_z3.values import Val

__all__ = ["ClassModel", "build_class_models", "infer_fields", "BEFORE", "AFTER"]

#: Suffixes naming an invariant assumed before / required after a method call (stripped in reports).
BEFORE, AFTER = " (before the call)", " (after the call)"
_NUM, _STR, _BAD = "number", "str", "unknown"
_COMPARE_OPS = ("<", "<=", ">", ">=", "==", "!=")


@dataclass(frozen=True)
class ClassModel:
    """A class block in Z3 form.

    Attributes:
        name: the class's name.
        fields: the modelled fields with their inferred types (see the module docstring).
        unmodelled: fields read by the requirements whose type could not be inferred.
        invariants: one per invariant requirement, over the generic state constant ``state``.
        others: the class-level requirements that are not invariants (``model`` ...), marked unsupported.
        methods: one :class:`FunctionModel` per method with requirements, named ``Class.method``; its
            requirements are the method's own followed by the invariants before/after the call
            (``derived``, IDs suffixed with :data:`BEFORE`/:data:`AFTER`).
    """

    name: str
    fields: tuple[tuple[str, Ty], ...]
    unmodelled: tuple[str, ...]
    invariants: tuple[Z3Requirement, ...]
    others: tuple[Z3Requirement, ...]
    methods: tuple[FunctionModel, ...]
    state: z3.ExprRef | None = None


def _self_attrs(node: Any, parent: Any, out: list[tuple[str, Any, Any]]) -> None:
    """Collect ``(field, node, parent)`` for every ``self.FIELD`` in ``node``."""
    if isinstance(node, A.Attribute) and isinstance(node.value, A.Name) and node.value.id == "self":
        out.append((node.attr, node, parent))
        return
    if isinstance(node, A.Old) and isinstance(node.expr, A.Attribute) and isinstance(node.expr.value, A.Name) \
            and node.expr.value.id == "self":
        out.append((node.expr.attr, node, parent))  # `old(self.x)` takes the context of the old()
        return
    if isinstance(node, (tuple, list)):
        for x in node:
            _self_attrs(x, parent, out)
        return
    if isinstance(node, (A.Span, A.TypeRef, str, int, float, bytes, bool)) or node is None \
            or not hasattr(node, "__dataclass_fields__"):
        return
    for f in fields(node):
        if f.name != "span":
            _self_attrs(getattr(node, f.name), node, out)


def _kind(e: Any, params: dict[str, Ty | None], known: dict[str, str]) -> str | None:
    """``number``/``str`` when ``e`` surely has that kind, else None."""
    if isinstance(e, A.Const) and not isinstance(e.value, bool):
        return _NUM if isinstance(e.value, (int, float)) else _STR if isinstance(e.value, str) else None
    if isinstance(e, A.Name) and params.get(e.id) is not None:
        ty = params[e.id]
        return _NUM if ty is not None and ty.kind in ("int", "real") else _STR if ty == STR else None
    if isinstance(e, A.Attribute) and isinstance(e.value, A.Name) and e.value.id == "self":
        k = known.get(e.attr)
        return k if k in (_NUM, _STR) else None
    if isinstance(e, A.Old):
        return _kind(e.expr, params, known)
    if isinstance(e, A.Call) and isinstance(e.func, A.Name) and e.func.id == "len":
        return _NUM
    if isinstance(e, A.UnaryOp):
        return _NUM if _kind(e.operand, params, known) == _NUM else None
    if isinstance(e, A.BinOp) and e.op in ("+", "-"):
        a, b = _kind(e.left, params, known), _kind(e.right, params, known)
        return a if a is not None and a == b else _NUM if e.op == "-" and _NUM in (a, b) else None
    return None


def _evidence(node: Any, parent: Any, params: dict[str, Ty | None], known: dict[str, str]) -> str | None:
    others: list[Any] = []
    if isinstance(parent, A.Compare) and all(op in _COMPARE_OPS for op in parent.ops):
        others = [x for x in (parent.left, *parent.comparators) if x is not node]
    elif isinstance(parent, A.BinOp) and parent.op in ("+", "-"):
        others = [parent.right if parent.left is node else parent.left]
    elif isinstance(parent, A.UnaryOp):
        return _NUM
    else:
        return _BAD
    kinds = {_kind(x, params, known) for x in others} - {None}
    return kinds.pop() if len(kinds) == 1 else (None if not kinds else _BAD)


def infer_fields(cls: A.ClassDecl, ctx: SpecContext) -> tuple[dict[str, Ty], tuple[str, ...]]:
    """The fields of ``cls`` read as ``self.NAME`` with their inferred types, and the fields left
    unmodelled (module docstring)."""
    sites: list[tuple[str, Any, Any, dict[str, Ty | None]]] = []
    scopes: list[tuple[tuple[A.Requirement, ...], dict[str, Ty | None]]] = [(cls.requirements, {})]
    for m in cls.methods:
        ptys: dict[str, Ty | None] = {}
        for p in m.params:
            try:
                ptys[p.name] = ty_from_ref(p.type, ctx.records)
            except UnsupportedConstruct:
                ptys[p.name] = None
        scopes.append((m.requirements, ptys))
    for reqs, ptys in scopes:
        found: list[tuple[str, Any, Any]] = []
        _self_attrs(tuple(c for r in reqs for c in r.clauses), None, found)
        sites += [(f, n, p, ptys) for f, n, p in found]
    known: dict[str, str] = {}
    for _ in range(3):  # evidence through other fields: a few rounds reach a fixpoint in practice
        ev: dict[str, set[str]] = {}
        for f, node, parent, ptys in sites:
            k = _evidence(node, parent, ptys, known)
            if k is not None:
                ev.setdefault(f, set()).add(k)
        known = {f: (ks.pop() if len(ks) == 1 else _BAD) for f, ks in ev.items()}
    names = sorted({f for f, _, _, _ in sites})
    typed = {f: (REAL if known.get(f) == _NUM else STR) for f in names if known.get(f) in (_NUM, _STR)}
    return typed, tuple(f for f in names if f not in typed)


def _lower_old(node: Any, mapping: dict[str, A.Expr]) -> Any:
    """``node`` with every ``old(E)`` replaced by ``E`` read on the state before the call."""
    if isinstance(node, A.Old):
        return substitute(node.expr, mapping)
    if isinstance(node, tuple):
        return tuple(_lower_old(x, mapping) for x in node)
    if isinstance(node, (A.Span, A.TypeRef, str, int, float, bytes, bool)) or node is None \
            or not hasattr(node, "__dataclass_fields__"):
        return node
    return replace(node, **{f.name: _lower_old(getattr(node, f.name), mapping) for f in fields(node)
                            if f.name != "span"})


def _before(req: A.Requirement, mapping: dict[str, A.Expr]) -> A.Requirement:
    out: list[A.Clause] = []
    for c in inline_lets(req.clauses):
        if isinstance(c, A.Requires):
            out.append(replace(c, expr=substitute(c.expr, mapping)))
        elif isinstance(c, A.Raises):
            out.append(replace(c, when=substitute(c.when, mapping)))
        elif isinstance(c, A.Ensures):
            out.append(replace(c, expr=_lower_old(c.expr, mapping)))
        else:
            out.append(c)
    return replace(req, clauses=tuple(out))


def _invariant(req: A.Requirement, ctx: SpecContext, env: dict[str, Val]) -> Z3Requirement:
    if req.informal is not None:
        return Z3Requirement(req.id, req.prose, "informal", req.span)
    clauses = [c for c in req.clauses if not isinstance(c, A.Let)]
    if not clauses or not all(isinstance(c, A.Invariant) for c in clauses):
        kinds = sorted({type(c).__name__.lower() for c in clauses})
        return Z3Requirement(req.id, req.prose, "invariant", req.span,
                             unsupported=f"not in the Z3 fragment: {', '.join(kinds)} clause")
    t = ctx.translator(dict(env))
    try:
        parts, sites = [], []
        for c in inline_lets(req.clauses):
            assert isinstance(c, A.Invariant)
            parts.append(t.formula(c.expr))
            sites += [(to_python(x), t.formula(x)) for x in antecedent_sites(c.expr)]
        f = z3.And(*parts)
        return Z3Requirement(req.id, req.prose, "invariant", req.span, f, f, None, tuple(sites), notes=tuple(t.notes))
    except UnsupportedConstruct as exc:
        return Z3Requirement(req.id, req.prose, "invariant", req.span,
                             unsupported=f"not in the Z3 fragment: {exc.construct}")


def _method(cls: A.ClassDecl, m: A.MethodDecl, ctx: SpecContext, state_ty: Ty | None,
            invariants: list[Z3Requirement]) -> FunctionModel:
    name = f"{cls.name}.{m.name}"
    try:
        params = [(p.name, ty_from_ref(p.type, ctx.records)) for p in m.params]
        rty = ty_from_ref(m.returns, ctx.records) if m.returns is not None and str(m.returns) != "None" else None
    except UnsupportedConstruct as exc:
        why = f"not in the Z3 fragment: {exc.construct}"
        return FunctionModel(name, (), None, tuple(
            Z3Requirement(r.id, r.prose, "informal" if r.informal else "postcondition", r.span,
                          unsupported=None if r.informal else why) for r in m.requirements), signature_problem=why)
    consts: list[tuple[str, Ty, z3.ExprRef]] = []
    env: dict[str, Val] = {}
    mapping: dict[str, A.Expr] = {}
    axioms: list[z3.BoolRef] = []
    for p, (pname, ty) in zip(m.params, params):
        c = z3.Const(f"{name}.{pname}", sort_of(ty))
        consts.append((pname, ty, c))
        env[pname] = Val(ty, c)
        axioms += narrowing(p.type, ty, c) + record_narrowing(ctx, ty, c)
        if ty.kind in ("seq", "set"):  # the call may mutate it: old() and `requires` read a copy
            pre = z3.Const(f"{name}.{pname}@before", sort_of(ty))
            env[f"__before_{pname}"] = Val(ty, pre)
            mapping[pname] = A.Name(f"__before_{pname}", p.span)
            axioms += narrowing(p.type, ty, pre)
    pre_state = post_state = None
    if state_ty is not None:
        pre_state = z3.Const(f"{name}.self@before", sort_of(state_ty))
        post_state = z3.Const(f"{name}.self@after", sort_of(state_ty))
        env["self"] = Val(state_ty, post_state)
        env["__before_self"] = Val(state_ty, pre_state)
        mapping["self"] = A.Name("__before_self", m.span)
    if rty is not None:
        env["result"] = Val(rty, z3.Const(f"{name}.result", sort_of(rty)))
    lowered = [_before(r, mapping) for r in m.requirements]
    raises_when = [c.when for r in lowered for c in r.clauses if isinstance(c, A.Raises)]
    reqs = [requirement_model(r, env, ctx, raises_when) for r in lowered]
    # `may raise` on a method: the call's outcome (return or an allowed exception) is modelled for functions only;
    # reading the postcondition as always holding could report a false conflict, so the requirement is left out
    reqs = [replace(z, formula=None, pre=None, post=None, antecedents=(),
                    unsupported="not in the Z3 fragment: `may raise` on a class method")
            if any(isinstance(c, A.MayRaise) for c in r.clauses) and z.formula is not None else z
            for r, z in zip(lowered, reqs)]
    derived: list[Z3Requirement] = []
    if state_ty is not None and pre_state is not None and post_state is not None \
            and any(r.formula is not None for r in reqs):
        normal = z3.BoolVal(True)
        if raises_when:
            try:
                t = ctx.translator(dict(env))
                normal = z3.Not(z3.Or(*[t.formula(w) for w in raises_when]))
            except UnsupportedConstruct:
                normal = z3.BoolVal(False)  # unknown when it returns: the invariant after is not used
        for inv in invariants:
            if inv.formula is None or inv.unsupported:
                continue
            before = z3.substitute(inv.formula, (_STATE[state_ty], pre_state))
            after = z3.substitute(inv.formula, (_STATE[state_ty], post_state))
            if m.name != "__init__":
                derived.append(Z3Requirement(inv.id + BEFORE, inv.prose, "assume", inv.span, before, before,
                                             derived=True))
            derived.append(Z3Requirement(inv.id + AFTER, inv.prose, "postcondition", inv.span,
                                         z3.Implies(normal, after), normal, after, derived=True))
    ordered = [d for d in derived if d.role == "assume"] + reqs + [d for d in derived if d.role != "assume"]
    return FunctionModel(name, tuple(consts), None, tuple(ordered), axioms=tuple(axioms))


#: The generic state constant of each state type (invariants are translated over it once).
_STATE: dict[Ty, z3.ExprRef] = {}


def build_class_models(spec: A.Spec, ctx: SpecContext | None = None) -> list[ClassModel]:
    """A :class:`ClassModel` per ``class`` block of ``spec`` (never raises for a construct outside the
    fragment: the requirement keeps its reason)."""
    ctx = ctx or spec_context(spec)
    out = []
    for cls in spec.classes:
        typed, unmodelled = infer_fields(cls, ctx)
        state_ty = Ty("record", tuple(typed.values()), f"{cls.name}_state", tuple(typed)) if typed else None
        env: dict[str, Val] = {}
        state = None
        if state_ty is not None:
            state = _STATE.setdefault(state_ty, z3.Const(f"{cls.name}.self", sort_of(state_ty)))
            env["self"] = Val(state_ty, state)
        invs: list[Z3Requirement] = []
        others: list[Z3Requirement] = []
        for r in cls.requirements:
            if r.informal is not None:
                continue
            z = _invariant(r, ctx, env)
            is_inv = all(isinstance(c, (A.Invariant, A.Let)) for c in r.clauses)
            (invs if is_inv else others).append(z)
        methods = tuple(_method(cls, m, ctx, state_ty, invs) for m in cls.methods if m.requirements)
        out.append(ClassModel(cls.name, tuple(typed.items()), unmodelled, tuple(invs), tuple(others), methods,
                              state))
    return out
