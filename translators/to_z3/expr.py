"""Spec expressions to Z3 terms with Python's meaning.

The rules that differ from SMT-LIB and are implemented here:

* ``a // b`` and ``a % b`` floor (Python) where SMT's ``div``/``mod`` are Euclidean: for ``b < 0`` and a
  non-zero remainder the quotient is one less and the remainder is ``r + b`` (Python reference,
  "Binary arithmetic operations": ``x == (x//y)*y + (x%y)``, the remainder has the sign of ``y``);
* ``/`` on ints gives a real (exact: Python's float rounding is not modelled, and a note says so);
* ``True + 1 == 2``: bools are promoted to 0/1 in arithmetic and comparisons;
* chained comparisons ``a < b < c`` evaluate ``b`` once and stop at the first false link;
* ``re.fullmatch(p, s) is not None`` (and ``match``/``search``) is membership in a Z3 regular expression
  for the pattern subset of :mod:`.regex`;
* ``and``/``or`` return an operand (``0 or 5`` is 5), and short-circuit;
* ``xs[-1]`` is the last element; indexing out of range, dividing by zero, ``min([])`` raise in Python:
  each such *definedness condition* is collected under the short-circuit guards that lead to it, and a
  requirement holds only when its value is true and every reached operation is defined.

Inside ``forall``/``exists`` an element whose evaluation raises counts as not satisfying the body.
Constructs outside the fragment raise :class:`~evalgap.translators.errors.UnsupportedConstruct`.
"""

from __future__ import annotations

import math

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterator, Mapping

import z3

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_z3.arith import arith
from evalgap.translators.to_z3.types import BOOL, INT, REAL, STR, Ty, field_accessor, is_numeric, sort_of
from evalgap.translators.to_z3.values import (Val, as_int, as_real, coerce, common_type, eq, lit, seq_of,
                                              truthy)

__all__ = ["Translator", "FuncSig", "Helper", "arith"]

_COUNTER = itertools.count()


@dataclass(frozen=True)
class FuncSig:
    """A function of the target, modelled as an uninterpreted function: parameter and result types."""

    name: str
    params: tuple[Ty, ...]
    result: Ty
    decl: z3.FuncDeclRef


@dataclass(frozen=True)
class Helper:
    """A user helper ``def NAME(params) -> type: EXPR`` (inlined; recursive ones become Z3 recursive
    function definitions)."""

    name: str
    params: tuple[tuple[str, Ty], ...]
    result: Ty
    body: A.Expr
    recursive: bool = False


@dataclass
class Translator:
    """Translates expressions in one environment.

    Attributes:
        env: name -> value (parameters, ``result``, config fields, bound variables).
        functions: target functions callable from the spec (uninterpreted).
        helpers: user helpers by name.
        globals: top-level ``let`` values (the only outer names a helper body sees).
        lazy: ``let`` clauses: name -> (expression, environment at the ``let``); a named expression is
            translated where it is used, so its definedness conditions get the guards of the use site.
        notes: approximations made so far (``float modelled as real``), for the report.
    """

    env: dict[str, Val]
    functions: Mapping[str, FuncSig] = field(default_factory=dict)
    helpers: Mapping[str, Helper] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    _guards: list[z3.BoolRef] = field(default_factory=list)
    _obligations: list[z3.BoolRef] = field(default_factory=list)
    globals: dict[str, Val] = field(default_factory=dict)
    lazy: dict[str, tuple[A.Expr, dict[str, Val]]] = field(default_factory=dict)
    _recfuns: dict[str, z3.FuncDeclRef] = field(default_factory=dict)
    _inlining: tuple[str, ...] = ()

    # ------------------------------------------------------------------ entry points
    def formula(self, node: A.Expr) -> z3.BoolRef:
        """The Z3 meaning of ``node`` used as a requirement: truthy and every reached operation defined.

        Raises:
            UnsupportedConstruct: a construct outside the Z3 fragment.
        """
        saved_g, saved_o = self._guards, self._obligations
        self._guards, self._obligations = [], []
        try:
            v = self.expr(node)
            return z3.And(truthy(v, _span(node)), *self._obligations)
        finally:
            self._guards, self._obligations = saved_g, saved_o

    def value(self, node: A.Expr) -> tuple[Val, z3.BoolRef]:
        """The value of ``node`` and its definedness condition (for tests and differential checks)."""
        saved_g, saved_o = self._guards, self._obligations
        self._guards, self._obligations = [], []
        try:
            v = self.expr(node)
            return v, z3.And(*self._obligations)
        finally:
            self._guards, self._obligations = saved_g, saved_o

    def expr(self, node: object) -> Val:
        """Translate one expression node (see the module docstring for the meaning)."""
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise UnsupportedConstruct(type(node).__name__, _span(node))
        return handler(self, node)

    # ------------------------------------------------------------------ definedness
    def require(self, cond: z3.BoolRef) -> None:
        """Record that Python raises unless ``cond`` holds at this point (under the current guards)."""
        self._obligations.append(z3.Implies(z3.And(*self._guards), cond) if self._guards else cond)

    def guarded(self, guard: z3.BoolRef, node: A.Expr) -> Val:
        """Translate ``node`` as evaluated only when ``guard`` holds (short-circuit)."""
        self._guards.append(guard)
        try:
            return self.expr(node)
        finally:
            self._guards.pop()

    def let(self, name: str, value: A.Expr) -> None:
        """Bind ``name`` to the named expression ``value`` in the current environment (inlined at use)."""
        self.env.pop(name, None)
        self.lazy[name] = (value, dict(self.env))

    def note(self, text: str) -> None:
        """Record an approximation (once)."""
        if text not in self.notes:
            self.notes.append(text)

    def fresh(self, name: str, ty: Ty) -> z3.ExprRef:
        """A fresh Z3 constant of type ``ty`` (bound variables, helper parameters)."""
        return z3.Const(f"{name}!{next(_COUNTER)}", sort_of(ty))

    def closed_body(self, env: dict[str, Val], body: A.Expr) -> z3.BoolRef:
        """``body`` translated in ``env`` as a self-contained formula (its definedness folded in);
        used for quantifier bodies, whose conditions mention bound variables."""
        saved = (self.env, self._guards, self._obligations)
        self.env, self._guards, self._obligations = env, [], []
        try:
            v = self.expr(body)
            return z3.And(truthy(v, _span(body)), *self._obligations)
        finally:
            self.env, self._guards, self._obligations = saved

    def recfun(self, key: str, make: Callable[[], z3.FuncDeclRef]) -> z3.FuncDeclRef:
        """A recursive function definition, created once per translator."""
        if key not in self._recfuns:
            self._recfuns[key] = make()
        return self._recfuns[key]


def _span(node: object) -> A.Span:
    sp = getattr(node, "span", A.NOSPAN)
    return sp if isinstance(sp, A.Span) else A.NOSPAN


# ---------------------------------------------------------------------- leaves
def _name(t: Translator, n: A.Name) -> Val:
    if n.id in t.env:
        v = t.env[n.id]
        if v.ty == REAL:
            t.note("float modelled as real (no rounding, NaN or infinity)")
        return v
    if n.id in t.lazy:
        value, env = t.lazy[n.id]
        saved = t.env
        t.env = env
        try:
            return t.expr(value)
        finally:
            t.env = saved
    raise UnsupportedConstruct(f"name `{n.id}`", n.span, "not a parameter, helper or field")


def _const(t: Translator, n: A.Const) -> Val:
    v = n.value
    if isinstance(v, bool) or isinstance(v, int) or isinstance(v, str):
        return lit(v)
    if isinstance(v, float):
        if not math.isfinite(v):  # 1e999 reads as inf: no real number models it
            raise UnsupportedConstruct(f"non-finite float literal {v!r}", n.span)
        t.note("float modelled as real (no rounding, NaN or infinity)")
        return lit(Fraction(v))
    raise UnsupportedConstruct(f"{type(v).__name__} literal", n.span)


def _binop(t: Translator, n: A.BinOp) -> Val:
    return arith(t, n.op, t.expr(n.left), t.expr(n.right), n.span)


def _unary(t: Translator, n: A.UnaryOp) -> Val:
    v = t.expr(n.operand)
    if not is_numeric(v.ty):
        raise UnsupportedConstruct(f"unary {n.op} on {v.ty}", n.span)
    if v.ty == REAL:
        return Val(REAL, -v.term if n.op == "-" else v.term)
    x = as_int(v, n.span)
    return Val(INT, -x if n.op == "-" else x)


# ---------------------------------------------------------------------- logic
def _select(cond: z3.BoolRef, a: Val, b: Val, span: A.Span) -> Val:
    ty = common_type(a.ty, b.ty, span)
    if ty is None:
        raise UnsupportedConstruct(f"a value that is either {a.ty} or {b.ty}", span)
    ca, cb = coerce(a, ty, span), coerce(b, ty, span)
    return Val(ty, z3.If(cond, ca.term, cb.term))


def _boolop(t: Translator, n: A.BoolOp) -> Val:
    vals: list[Val] = []
    truths: list[z3.BoolRef] = []
    prior: z3.BoolRef | None = None  # "every operand so far let evaluation go on": grown by one conjunct per
    for node in n.values:             # operand, so a chain of n operands builds O(n) terms, not O(n^2)
        v = t.expr(node) if prior is None else t.guarded(prior, node)
        vals.append(v)
        truth = truthy(v, n.span)
        truths.append(truth)
        going_on = truth if n.op == "and" else z3.Not(truth)
        prior = going_on if prior is None else z3.And(prior, going_on)
    if all(v.ty == BOOL for v in vals):
        return Val(BOOL, z3.And(*truths) if n.op == "and" else z3.Or(*truths))
    out = vals[-1]  # Python returns the deciding operand
    for v, tr in zip(reversed(vals[:-1]), reversed(truths[:-1])):
        out = _select(z3.Not(tr) if n.op == "and" else tr, v, out, n.span)
    return out


def _not(t: Translator, n: A.Not) -> Val:
    return Val(BOOL, z3.Not(truthy(t.expr(n.operand), n.span)))


def _implies(t: Translator, n: A.Implies) -> Val:
    left = truthy(t.expr(n.left), n.span)
    right = truthy(t.guarded(left, n.right), n.span)
    return Val(BOOL, z3.Implies(left, right))


def _iff(t: Translator, n: A.Iff) -> Val:
    return Val(BOOL, truthy(t.expr(n.left), n.span) == truthy(t.expr(n.right), n.span))


def _ifexp(t: Translator, n: A.IfExp) -> Val:
    c = truthy(t.expr(n.test), n.span)
    return _select(c, t.guarded(c, n.body), t.guarded(z3.Not(c), n.orelse), n.span)


# ---------------------------------------------------------------------- comparisons
def membership(t: Translator, x: Val, coll: Val, span: A.Span) -> z3.BoolRef:
    """Python's ``x in coll`` for lists, strings, sets and tuples."""
    if coll.elems is not None:
        return z3.Or(*[eq(x, e, span) for e in coll.elems]) if coll.elems else z3.BoolVal(False)
    assert coll.ty is not None
    if coll.ty == STR:
        if x.ty != STR:
            raise UnsupportedConstruct(f"{x.ty} in str", span)
        return z3.Contains(coll.term, x.term)
    if coll.ty.kind == "seq":
        elem = coll.ty.args[0]
        if common_type(x.ty, elem, span) != elem:
            return z3.BoolVal(False) if common_type(x.ty, elem, span) is None else _seq_member_real(x, coll)
        return z3.Contains(coll.term, z3.Unit(coerce(x, elem, span).term))
    if coll.ty.kind == "set":
        return z3.IsMember(coerce(x, coll.ty.args[0], span).term, coll.term)
    raise UnsupportedConstruct(f"`in` on {coll.ty}", span)


def _seq_member_real(x: Val, coll: Val) -> z3.BoolRef:
    i = z3.FreshInt("i")
    s = coll.term
    return z3.Exists([i], z3.And(0 <= i, i < z3.Length(s), z3.ToReal(s[i]) == as_real(x)))


def compare(t: Translator, op: str, a: Val, b: Val, span: A.Span) -> z3.BoolRef:
    """One link of a comparison chain."""
    if op == "==":
        return eq(a, b, span)
    if op == "!=":
        return z3.Not(eq(a, b, span))
    if op == "in":
        return membership(t, a, b, span)
    if op == "not in":
        return z3.Not(membership(t, a, b, span))
    if op in ("<", "<=", ">", ">="):
        if is_numeric(a.ty) and is_numeric(b.ty):
            if REAL in (a.ty, b.ty):
                x, y = as_real(a, span), as_real(b, span)
            else:
                x, y = as_int(a, span), as_int(b, span)
        elif a.ty == b.ty == STR:
            x, y = a.term, b.term
        elif a.ty is not None and a.ty == b.ty and a.ty.kind == "set":
            sub = {"<=": (a, b), ">=": (b, a), "<": (a, b), ">": (b, a)}[op]
            res = z3.IsSubset(sub[0].term, sub[1].term)
            return z3.And(res, sub[0].term != sub[1].term) if op in ("<", ">") else res
        else:
            raise UnsupportedConstruct(f"{a.ty} {op} {b.ty}", span)
        return {"<": lambda: x < y, "<=": lambda: x <= y, ">": lambda: x > y, ">=": lambda: x >= y}[op]()
    raise UnsupportedConstruct(f"`{op}`", span)


def _compare(t: Translator, n: A.Compare) -> Val:
    left = t.expr(n.left)
    links: list[z3.BoolRef] = []
    for k, (op, comp) in enumerate(zip(n.ops, n.comparators)):
        if op in ("in", "not in") and isinstance(comp, A.Call) and isinstance(comp.func, A.Name) \
                and comp.func.id == "range":
            if k != len(n.ops) - 1:
                raise UnsupportedConstruct("range() inside a comparison chain", n.span)
            link = _in_range(t, left, comp)
            links.append(link if op == "in" else z3.Not(link))
            break
        if op in ("is", "is not") and isinstance(comp, A.Const) and comp.value is None:
            if k != len(n.ops) - 1 or left.ty is None or left.ty.kind != "match":
                raise UnsupportedConstruct(f"`{op} None` other than on the value of re.match()", n.span)
            links.append(z3.Not(left.term) if op == "is" else left.term)
            break
        right = t.guarded(z3.And(*links), comp) if links else t.expr(comp)
        links.append(compare(t, op, left, right, n.span))
        left = right
    return Val(BOOL, z3.And(*links) if len(links) > 1 else links[0])


def _in_range(t: Translator, x: Val, call: A.Call) -> z3.BoolRef:
    lo, hi, step = range_bounds(t, call)
    if step is not None:
        raise UnsupportedConstruct("range() with a step", call.span)
    if x.ty not in (INT, BOOL):
        raise UnsupportedConstruct(f"{x.ty} in range()", call.span)
    xi = as_int(x, call.span)
    return z3.And(lo <= xi, xi < hi)


def range_bounds(t: Translator, call: A.Call) -> tuple[z3.ArithRef, z3.ArithRef, object]:
    """``(lo, hi, step)`` of ``range(...)`` (step None when absent or the constant 1)."""
    args = [as_int(t.expr(a), call.span) for a in call.args]
    if not 1 <= len(args) <= 3 or call.keywords:
        raise UnsupportedConstruct("range() with these arguments", call.span)
    if len(args) == 1:
        return z3.IntVal(0), args[0], None
    step = None
    if len(args) == 3:
        s = z3.simplify(args[2])
        if not (z3.is_int_value(s) and s.as_long() == 1):
            step = s
    return args[0], args[1], step


# ---------------------------------------------------------------------- containers
def _list(t: Translator, n: A.ListExpr) -> Val:
    elems = tuple(t.expr(e) for e in n.elts)
    if not elems:
        return Val(None, None, ())
    ty: Ty | None = elems[0].ty
    for e in elems[1:]:
        ty = common_type(ty, e.ty, n.span)
        if ty is None:
            raise UnsupportedConstruct("a list mixing unrelated types", n.span)
    if ty is None:
        raise UnsupportedConstruct("a list of empty lists (element type unknown)", n.span)
    lty = Ty("seq", (ty,))
    cel = tuple(coerce(e, ty, n.span) for e in elems)
    return Val(lty, seq_of(lty, cel), cel)


def _tuple(t: Translator, n: A.TupleExpr) -> Val:
    from evalgap.translators.to_z3.types import constructor

    elems = tuple(t.expr(e) for e in n.elts)
    if any(e.ty is None for e in elems):
        raise UnsupportedConstruct("an empty list inside a tuple", n.span)
    ty = Ty("tuple", tuple(e.ty for e in elems if e.ty is not None))
    return Val(ty, constructor(ty)(*[e.term for e in elems]), elems)


def _set(t: Translator, n: A.SetExpr) -> Val:
    lst = _list(t, A.ListExpr(n.elts, n.span))
    assert lst.ty is not None and lst.elems is not None
    ety = lst.ty.args[0]
    s = z3.EmptySet(sort_of(ety))
    for e in lst.elems:
        s = z3.SetAdd(s, e.term)
    return Val(Ty("set", (ety,)), s)


def _attribute(t: Translator, n: A.Attribute) -> Val:
    v = t.expr(n.value)
    fty = v.ty.field_type(n.attr) if v.ty is not None else None
    if v.ty is None or fty is None:
        raise UnsupportedConstruct(f"attribute .{n.attr} of {v.ty}", n.span)
    if fty == REAL:
        t.note("float modelled as real (no rounding, NaN or infinity)")
    return Val(fty, field_accessor(v.ty, v.ty.fields.index(n.attr))(v.term))


def _subscript(t: Translator, n: A.Subscript) -> Val:
    from evalgap.translators.to_z3.calls import slice_of

    v = t.expr(n.value)
    if isinstance(n.index, A.Slice):
        return slice_of(t, v, n.index, n.span)
    idx = t.expr(n.index)
    if v.ty is not None and v.ty.kind == "tuple":
        k = z3.simplify(as_int(idx, n.span))
        if not z3.is_int_value(k):
            raise UnsupportedConstruct("a tuple indexed by a variable", n.span)
        i = k.as_long()
        if not -len(v.ty.args) <= i < len(v.ty.args):
            t.require(z3.BoolVal(False))
            return Val(v.ty.args[0], z3.FreshConst(sort_of(v.ty.args[0])))
        i %= len(v.ty.args)
        return v.elems[i] if v.elems is not None else Val(v.ty.args[i], field_accessor(v.ty, i)(v.term))
    if v.ty is None or v.ty.kind not in ("seq", "str"):
        raise UnsupportedConstruct(f"indexing {v.ty or 'an empty list'}", n.span)
    i = as_int(idx, n.span)
    length = z3.Length(v.term)
    t.require(z3.And(-length <= i, i < length))
    j = z3.If(i >= 0, i, length + i)
    if v.ty == STR:
        return Val(STR, z3.SubString(v.term, j, 1))
    return Val(v.ty.args[0], v.term[j])


def _quantifier(t: Translator, n: A.Quantifier) -> Val:
    from evalgap.translators.to_z3.calls import domain

    dom = domain(t, n.domain, n.targets, n.span)
    if dom.static is not None:
        parts = [t.closed_body({**t.env, **b}, n.body) for b in dom.static]
        return Val(BOOL, z3.And(*parts) if n.kind == "forall" else z3.Or(*parts))
    body = t.closed_body({**t.env, **(dom.bindings or {})}, n.body)
    if n.kind == "forall":
        return Val(BOOL, z3.ForAll(dom.bound, z3.Implies(dom.cond, body)))
    return Val(BOOL, z3.Exists(dom.bound, z3.And(dom.cond, body)))


def _call(t: Translator, n: A.Call) -> Val:
    from evalgap.translators.to_z3.calls import call

    return call(t, n)


def _comprehension(t: Translator, n: A.Comprehension) -> Val:
    from evalgap.translators.to_z3.calls import comprehension

    return comprehension(t, n)


def _unsupported(what: str) -> Callable[..., Val]:
    def handler(t: Translator, n: object) -> Val:
        raise UnsupportedConstruct(what, _span(n))
    return handler


_HANDLERS: dict[type, Callable[..., Val]] = {
    A.Name: _name, A.Const: _const, A.BinOp: _binop, A.UnaryOp: _unary, A.BoolOp: _boolop, A.Not: _not,
    A.Compare: _compare, A.Implies: _implies, A.Iff: _iff, A.IfExp: _ifexp, A.Call: _call,
    A.Attribute: _attribute, A.Subscript: _subscript, A.ListExpr: _list, A.TupleExpr: _tuple,
    A.SetExpr: _set, A.DictExpr: _unsupported("dict"), A.Comprehension: _comprehension,
    A.Quantifier: _quantifier,
}
if hasattr(A, "Old"):
    _HANDLERS[A.Old] = _unsupported("old()")


def iter_handlers() -> Iterator[type]:
    """The AST node types this translator handles (for a conformance test)."""
    return iter(_HANDLERS)
