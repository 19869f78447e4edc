"""Calls, quantifier domains, comprehensions and slices in the Z3 translation.

Builtins in the fragment: ``len abs min max sum all any set list reversed int float bool range enumerate``,
the string methods ``startswith``/``endswith`` and ``re.fullmatch``/``re.match``/``re.search`` for the
pattern subset of :mod:`.regex` (their value has kind ``match``: truthy when not None). ``sum``, ``min``/``max`` of a list and ``reversed``
become recursive function definitions over sequences (Z3 ``RecFunction``); calls of target functions
become uninterpreted functions; user helpers are inlined (recursive ones become recursive functions).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import z3

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_z3.expr import Translator, arith, range_bounds
from evalgap.translators.to_z3.types import BOOL, INT, REAL, STR, Ty, field_accessor, is_numeric, sort_of
from evalgap.translators.to_z3.values import Val, as_int, as_real, coerce, common_type, seq_of, truthy

__all__ = ["call", "domain", "comprehension", "slice_of", "Domain"]

_DEF_COUNTER = itertools.count()


@dataclass(frozen=True)
class Domain:
    """What a quantifier ranges over: either ``static`` bindings (one dict per element, expanded into a
    conjunction) or Z3 ``bound`` variables with their membership ``cond`` and the ``bindings`` of the
    spec's target names."""

    static: tuple[dict[str, Val], ...] | None = None
    bound: tuple[z3.ExprRef, ...] = ()
    cond: z3.BoolRef | None = None
    bindings: dict[str, Val] | None = None


def _unpack(targets: tuple[str, ...], v: Val, span: A.Span) -> dict[str, Val]:
    if len(targets) == 1:
        return {targets[0]: v}
    if v.ty is None or v.ty.kind != "tuple" or len(v.ty.args) != len(targets):
        raise UnsupportedConstruct(f"unpacking {v.ty} into {len(targets)} names", span)
    if v.elems is not None:
        return dict(zip(targets, v.elems))
    return {n: Val(ty, field_accessor(v.ty, i)(v.term)) for i, (n, ty) in enumerate(zip(targets, v.ty.args))}


def domain(t: Translator, node: A.Expr, targets: tuple[str, ...], span: A.Span) -> Domain:
    """The domain of ``forall``/``exists``/a comprehension over ``node``.

    Raises:
        UnsupportedConstruct: dicts, ``zip``, ranges with a step, unpacking a non-tuple.
    """
    if isinstance(node, A.Call) and isinstance(node.func, A.Name) and node.func.id in ("range", "enumerate") \
            and node.func.id not in t.env:
        if node.func.id == "range":
            lo, hi, step = range_bounds(t, node)
            if step is not None or len(targets) != 1:
                raise UnsupportedConstruct("range() with a step or unpacking", node.span)
            i = t.fresh(targets[0], INT)
            return Domain(None, (i,), z3.And(lo <= i, i < hi), {targets[0]: Val(INT, i)})
        if len(node.args) != 1 or len(targets) != 2:
            raise UnsupportedConstruct("enumerate() other than `i, x in enumerate(xs)`", node.span)
        seq = t.expr(node.args[0])
        if seq.elems is not None:
            return Domain(tuple({targets[0]: Val(INT, z3.IntVal(k)), targets[1]: e}
                                for k, e in enumerate(seq.elems)))
        if seq.ty is None or seq.ty.kind != "seq":
            raise UnsupportedConstruct(f"enumerate() of {seq.ty}", node.span)
        i = t.fresh(targets[0], INT)
        return Domain(None, (i,), z3.And(0 <= i, i < z3.Length(seq.term)),
                      {targets[0]: Val(INT, i), targets[1]: Val(seq.ty.args[0], seq.term[i])})
    v = t.expr(node)
    if v.elems is not None:
        return Domain(tuple(_unpack(targets, e, span) for e in v.elems))
    if v.ty is None:
        return Domain(())
    if v.ty.kind in ("seq", "str"):
        i = t.fresh("i", INT)
        elem = Val(STR, z3.SubString(v.term, i, 1)) if v.ty == STR else Val(v.ty.args[0], v.term[i])
        return Domain(None, (i,), z3.And(0 <= i, i < z3.Length(v.term)), _unpack(targets, elem, span))
    if v.ty.kind == "set":
        x = t.fresh(targets[0], v.ty.args[0])
        return Domain(None, (x,), z3.IsMember(x, v.term), _unpack(targets, Val(v.ty.args[0], x), span))
    raise UnsupportedConstruct(f"iterating over {v.ty}", span)


def comprehension(t: Translator, n: A.Comprehension) -> Val:
    """``[e for x in xs]`` (no ``if``): ``SeqMap`` over a symbolic list, element-wise over a static one;
    ``{e for x in xs}``: the set of the images. Filtered comprehensions are outside the fragment (they
    are supported inside ``all``/``any``, which become quantifiers)."""
    dom = domain(t, n.iter, n.targets, n.span)
    if n.conds:
        raise UnsupportedConstruct("a comprehension with `if` outside all()/any()", n.span)
    if dom.static is not None:
        elems = tuple(_closed_value(t, {**t.env, **b}, n.elt) for b in dom.static)
        lst = _literal_list(elems, n.span)
        return _as_set(lst) if n.kind == "set" else lst
    assert dom.bindings is not None
    seq = t.expr(n.iter)
    if len(n.targets) != 1 or seq.ty is None or seq.ty.kind != "seq":
        raise UnsupportedConstruct("a comprehension over this domain", n.span)
    x = t.fresh(n.targets[0], seq.ty.args[0])
    body = _closed_value(t, {**t.env, n.targets[0]: Val(seq.ty.args[0], x)}, n.elt)
    assert body.ty is not None
    lty = Ty("seq", (body.ty,))
    mapped = Val(lty, z3.SeqMap(z3.Lambda([x], body.term), seq.term))
    return _as_set(mapped) if n.kind == "set" else mapped


def _closed_value(t: Translator, env: dict[str, Val], node: A.Expr) -> Val:
    saved = (t.env, t._guards, t._obligations)
    t.env, t._guards, t._obligations = env, [], []
    try:
        v = t.expr(node)
        if t._obligations:
            raise UnsupportedConstruct("a partial operation (division, indexing) inside a comprehension",
                                       getattr(node, "span", A.NOSPAN))
        return v
    finally:
        t.env, t._guards, t._obligations = saved


def _literal_list(elems: tuple[Val, ...], span: A.Span) -> Val:
    if not elems:
        return Val(None, None, ())
    ty = elems[0].ty
    for e in elems[1:]:
        ty = common_type(ty, e.ty, span) if ty is not None else None
    if ty is None:
        raise UnsupportedConstruct("a list mixing unrelated types", span)
    lty = Ty("seq", (ty,))
    cel = tuple(coerce(e, ty, span) for e in elems)
    return Val(lty, seq_of(lty, cel), cel)


def _as_set(v: Val) -> Val:
    if v.ty is None:
        raise UnsupportedConstruct("set() of an empty list literal (element type unknown)", A.NOSPAN)
    ety = v.ty.args[0]
    if v.elems is not None:
        s = z3.EmptySet(sort_of(ety))
        for e in v.elems:
            s = z3.SetAdd(s, e.term)
        return Val(Ty("set", (ety,)), s)
    y = z3.FreshConst(sort_of(ety), "y")
    return Val(Ty("set", (ety,)), z3.Lambda([y], z3.Contains(v.term, z3.Unit(y))))


def slice_of(t: Translator, v: Val, sl: A.Slice, span: A.Span) -> Val:
    """``v[lo:hi]`` with Python's clamping and negative bounds (step must be absent or 1)."""
    if v.ty is None or v.ty.kind not in ("seq", "str"):
        raise UnsupportedConstruct(f"slicing {v.ty or 'an empty list'}", span)
    if sl.step is not None:
        s = z3.simplify(as_int(t.expr(sl.step), span))
        if not (z3.is_int_value(s) and s.as_long() == 1):
            raise UnsupportedConstruct("a slice with a step", span)
    n = z3.Length(v.term)

    def norm(node: A.Expr | None, default: z3.ArithRef) -> z3.ArithRef:
        if node is None:
            return default
        x = as_int(t.expr(node), span)
        return z3.If(x < 0, z3.If(x + n < 0, 0, x + n), z3.If(x > n, n, x))

    lo, hi = norm(sl.lower, z3.IntVal(0)), norm(sl.upper, n)
    length = z3.If(hi > lo, hi - lo, 0)
    if v.ty == STR:
        return Val(STR, z3.SubString(v.term, lo, length))
    return Val(v.ty, z3.Extract(v.term, lo, length))


# ---------------------------------------------------------------------- recursive sequence functions
#: Z3 recursive functions are global to a context: each translation gets fresh names.
_FRESH = itertools.count(1)

def _seq_fun(t: Translator, kind: str, ty: Ty) -> z3.FuncDeclRef:
    sty = Ty("seq", (ty,))
    ssort, esort = sort_of(sty), sort_of(ty)

    def make() -> z3.FuncDeclRef:
        out_sort = ssort if kind == "rev" else esort
        f = z3.RecFunction(f"eg_{kind}_{ty}_{next(_FRESH)}", ssort, out_sort)
        s = z3.FreshConst(ssort, "s")
        n = z3.Length(s)
        tail = z3.Extract(s, 1, n - 1)
        if kind == "sum":
            body = z3.If(n == 0, z3.RealVal(0) if ty == REAL else z3.IntVal(0), s[0] + f(tail))
        elif kind == "rev":
            body = z3.If(n == 0, s, z3.Concat(f(tail), z3.Unit(s[0])))
        else:
            better = s[0] >= f(tail) if kind == "max" else s[0] <= f(tail)
            body = z3.If(n <= 1, s[0], z3.If(better, s[0], f(tail)))
        z3.RecAddDefinition(f, [s], body)
        return f
    key = f"{kind}:{ty}"
    if key not in _SEQ_FUNS:  # Z3 names are global: one definition per process
        _SEQ_FUNS[key] = make()
    return _SEQ_FUNS[key]


_SEQ_FUNS: dict[str, z3.FuncDeclRef] = {}


def _seq_arg(v: Val, what: str, span: A.Span, numeric: bool = True) -> Ty:
    if v.ty is None or v.ty.kind != "seq" or (numeric and v.ty.args[0] not in (INT, REAL)):
        raise UnsupportedConstruct(f"{what}() of {v.ty or 'an empty list'}", span)
    return v.ty.args[0]


def _minmax(t: Translator, n: A.Call, kind: str) -> Val:
    vals = [t.expr(a) for a in n.args]
    if n.keywords:
        raise UnsupportedConstruct(f"{kind}() with keyword arguments", n.span)
    if len(vals) == 1:
        v = vals[0]
        if v.elems is not None:
            if not v.elems:
                t.require(z3.BoolVal(False))
                return Val(INT, z3.IntVal(0))
            vals = list(v.elems)
        else:
            ety = _seq_arg(v, kind, n.span)
            t.require(z3.Length(v.term) > 0)
            return Val(ety, _seq_fun(t, kind, ety)(v.term))
    if not vals or not all(is_numeric(v.ty) for v in vals):
        raise UnsupportedConstruct(f"{kind}() of non-numbers", n.span)
    out = vals[0]
    for v in vals[1:]:  # Python keeps the first of equal candidates; equal numbers are equal values
        real = REAL in (out.ty, v.ty)
        a, b = (as_real(out), as_real(v)) if real else (as_int(out), as_int(v))
        better = b > a if kind == "max" else b < a
        out = Val(REAL if real else INT, z3.If(better, b, a))
    return out


def _sum(t: Translator, n: A.Call) -> Val:
    if len(n.args) != 1 or n.keywords:
        raise UnsupportedConstruct("sum() with a start value", n.span)
    arg = n.args[0]
    v = t.expr(arg) if not isinstance(arg, A.Comprehension) else comprehension(t, arg)
    if v.elems is not None:
        out = Val(INT, z3.IntVal(0))
        for e in v.elems:
            out = arith(t, "+", out, e, n.span)
        return out
    ety = _seq_arg(v, "sum", n.span)
    return Val(ety, _seq_fun(t, "sum", ety)(v.term))


def _allany(t: Translator, n: A.Call, kind: str) -> Val:
    if len(n.args) != 1:
        raise UnsupportedConstruct(f"{kind}() with {len(n.args)} arguments", n.span)
    arg = n.args[0]
    quant = "forall" if kind == "all" else "exists"
    if isinstance(arg, A.Comprehension):
        body: A.Expr = arg.elt
        if arg.conds:
            cond = arg.conds[0] if len(arg.conds) == 1 else A.BoolOp("and", arg.conds, arg.span)
            body = A.Implies(cond, body, arg.span) if kind == "all" else A.BoolOp("and", (cond, body), arg.span)
        return t.expr(A.Quantifier(quant, arg.targets, arg.iter, body, n.span))
    return t.expr(A.Quantifier(quant, ("_eg_x",), arg, A.Name("_eg_x", n.span), n.span))


def _len(t: Translator, n: A.Call) -> Val:
    v = t.expr(n.args[0])
    if v.elems is not None:
        return Val(INT, z3.IntVal(len(v.elems)))
    if v.ty is not None and v.ty.kind in ("seq", "str"):
        return Val(INT, z3.Length(v.term))
    raise UnsupportedConstruct(f"len() of {v.ty}", n.span)


def _abs(t: Translator, n: A.Call) -> Val:
    v = t.expr(n.args[0])
    if v.ty == REAL:
        return Val(REAL, z3.If(v.term >= 0, v.term, -v.term))
    x = as_int(v, n.span)
    return Val(INT, z3.If(x >= 0, x, -x))


def _int(t: Translator, n: A.Call) -> Val:
    v = t.expr(n.args[0])
    if v.ty == REAL:  # int() truncates toward zero; ToInt floors
        x = v.term
        return Val(INT, z3.If(x >= 0, z3.ToInt(x), -z3.ToInt(-x)))
    return Val(INT, as_int(v, n.span))


def _float(t: Translator, n: A.Call) -> Val:
    t.note("float modelled as real (no rounding, NaN or infinity)")
    return Val(REAL, as_real(t.expr(n.args[0]), n.span))


def _seqcopy(t: Translator, n: A.Call) -> Val:
    v = t.expr(n.args[0])
    if v.ty is None or v.ty.kind == "seq":
        return v
    raise UnsupportedConstruct(f"list() of {v.ty}", n.span)


def _reversed(t: Translator, n: A.Call) -> Val:
    v = t.expr(n.args[0])
    if v.elems is not None:
        return _literal_list(tuple(reversed(v.elems)), n.span) if v.elems else v
    ety = _seq_arg(v, "reversed", n.span, numeric=False)
    return Val(v.ty, _seq_fun(t, "rev", ety)(v.term))


_BUILTINS: dict[str, Callable[[Translator, A.Call], Val]] = {
    "len": _len, "abs": _abs, "sum": _sum, "int": _int, "float": _float, "list": _seqcopy,
    "min": lambda t, n: _minmax(t, n, "min"), "max": lambda t, n: _minmax(t, n, "max"),
    "all": lambda t, n: _allany(t, n, "all"), "any": lambda t, n: _allany(t, n, "any"),
    "bool": lambda t, n: Val(BOOL, truthy(t.expr(n.args[0]), n.span)),
    "set": lambda t, n: _as_set(t.expr(n.args[0])), "reversed": _reversed,
}


def _helper(t: Translator, n: A.Call, name: str) -> Val:
    h = t.helpers[name]
    args = [t.expr(a) for a in n.args]
    if len(args) != len(h.params) or n.keywords:
        raise UnsupportedConstruct(f"{name}() with {len(args)} arguments (takes {len(h.params)})", n.span)
    cargs = [coerce(a, ty, n.span) for a, (_, ty) in zip(args, h.params)]
    if not h.recursive:
        if name in t._inlining:
            raise UnsupportedConstruct(f"recursive helper {name} not marked recursive", n.span)
        saved_env, saved_inl = t.env, t._inlining
        t.env = {**t.globals, **dict(zip((p for p, _ in h.params), cargs))}
        t._inlining = saved_inl + (name,)
        try:
            return coerce(t.expr(h.body), h.result, n.span)
        finally:
            t.env, t._inlining = saved_env, saved_inl

    def make() -> z3.FuncDeclRef:
        f = z3.RecFunction(f"eg_def_{name}_{next(_DEF_COUNTER)}", *[sort_of(ty) for _, ty in h.params],
                           sort_of(h.result))
        t._recfuns[f"def:{name}"] = f  # visible to the body's own recursive calls
        formals = [z3.FreshConst(sort_of(ty), p) for p, ty in h.params]
        env = {**t.globals, **dict(zip((p for p, _ in h.params), (Val(ty, x) for (_, ty), x in zip(h.params, formals))))}
        saved = (t.env, t._guards, t._obligations)
        t.env, t._guards, t._obligations = env, [], []
        try:
            body = coerce(t.expr(h.body), h.result, n.span)
            if t._obligations:  # the body must be total: its guards must make every partial operation defined
                chk = z3.Solver()
                chk.set("timeout", 2000)
                chk.add(z3.Not(z3.And(*t._obligations)))
                if chk.check() != z3.unsat:
                    raise UnsupportedConstruct(f"a partial operation inside recursive helper {name}",
                                               h.body.span, "its guards do not make it defined on all inputs")
        finally:
            t.env, t._guards, t._obligations = saved
        z3.RecAddDefinition(f, formals, body.term)
        return f
    f = t.recfun(f"def:{name}", make)
    return Val(h.result, f(*[a.term for a in cargs]))


def _re_call(t: Translator, n: A.Call, func: str) -> Val:
    """``re.fullmatch/match/search(pattern, s)``: a value of kind ``match`` whose term is "not None"."""
    from evalgap.translators.to_z3.regex import MATCH, re_call_term

    if len(n.args) != 2 or n.keywords:
        raise UnsupportedConstruct(f"re.{func}() with flags or other than two arguments", n.span)
    subject = t.expr(n.args[1])
    if subject.ty != STR:
        raise UnsupportedConstruct(f"re.{func}() of {subject.ty}", n.span)
    return Val(MATCH, re_call_term(func, n.args[0], subject.term, n.span))


def call(t: Translator, n: A.Call) -> Val:
    """A call: a user helper, a target function (uninterpreted), a builtin or a string method.

    Raises:
        UnsupportedConstruct: anything else (``sorted``, ``str()``, methods of lists ...).
    """
    if isinstance(n.func, A.Attribute) and isinstance(n.func.value, A.Name) and n.func.value.id == "re" \
            and "re" not in t.env and "re" not in t.lazy:
        return _re_call(t, n, n.func.attr)
    if isinstance(n.func, A.Attribute):
        obj = t.expr(n.func.value)
        if obj.ty == STR and n.func.attr in ("startswith", "endswith") and len(n.args) == 1:
            arg = t.expr(n.args[0])
            if arg.ty != STR:
                raise UnsupportedConstruct(f"str.{n.func.attr} of {arg.ty}", n.span)
            f = z3.PrefixOf if n.func.attr == "startswith" else z3.SuffixOf
            return Val(BOOL, f(arg.term, obj.term))
        raise UnsupportedConstruct(f"method .{n.func.attr}()", n.span)
    if not isinstance(n.func, A.Name):
        raise UnsupportedConstruct("a call of a computed function", n.span)
    name = n.func.id
    if name in t.helpers:
        return _helper(t, n, name)
    if name in t.functions:
        sig = t.functions[name]
        args = [t.expr(a) for a in n.args]
        if len(args) != len(sig.params) or n.keywords:
            raise UnsupportedConstruct(f"{name}() with {len(args)} arguments", n.span)
        return Val(sig.result, sig.decl(*[coerce(a, ty, n.span).term for a, ty in zip(args, sig.params)]))
    if name in _BUILTINS and name not in t.env:
        if not n.args:
            raise UnsupportedConstruct(f"{name}() without arguments", n.span)
        return _BUILTINS[name](t, n)
    if name == "sorted":
        raise UnsupportedConstruct("sorted()", n.span, "a permutation is not in the Z3 fragment")
    raise UnsupportedConstruct(f"call of {name}()", n.span)
