"""Lowering helpers shared by every translator: name analysis, ``let`` inlining, domain narrowings and
environment assumptions, all as plain spec AST (so the icontract, Hypothesis and Z3 translations agree on
one meaning).

* :func:`free_names`: the names an expression reads and does not bind itself.
* :func:`substitute`: capture-avoiding replacement of names by expressions.
* :func:`inline_lets`: a requirement's clauses with its ``let`` clauses substituted into the later ones.
* :func:`domain_conditions`: the boolean conditions a parameter's narrowings (``in lo..hi``, ``len lo..hi``,
  an alphabet) impose, recursively through ``list``/``set``/``dict``/``tuple``/``Optional`` arguments.
* :func:`narrowing_text`: the narrowings as the spec wrote them (``n: int in 0..1000``), for reports.
* :func:`applicable_assumptions`: the ``assume`` declarations whose free names a parameter list binds.
"""

from __future__ import annotations

import builtins
from dataclasses import fields, replace
from typing import Any, Iterable, Mapping

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.stdlib import STDLIB_MODULES

__all__ = ["free_names", "substitute", "inline_lets", "domain_conditions", "narrowing_text",
           "applicable_assumptions", "type_text", "helper_names", "BUILTIN_NAMES"]

#: Names every spec expression may read without declaring them.
BUILTIN_NAMES: frozenset[str] = frozenset(dir(builtins)) | {"math", "result", "self"} | STDLIB_MODULES

_ELEMENT_TYPES = {"list", "set", "frozenset", "List", "Set", "FrozenSet", "Sequence", "Iterable", "Collection"}
_DICT_TYPES = {"dict", "Dict", "Mapping"}
_OPTIONAL = {"Optional"}
_TUPLE = {"tuple", "Tuple"}


def free_names(node: object, bound: frozenset[str] = frozenset()) -> set[str]:
    """Names an expression (statement, clause, or tuple of them) reads without binding them itself.

    Comprehension and quantifier variables are bound inside their bodies.

    Args:
        node: any AST node or a tuple/list of nodes.
        bound: names bound by the context (parameters, ``result``).

    Returns:
        The set of free identifiers not in ``bound``.
    """
    out: set[str] = set()
    if isinstance(node, A.Name):
        if node.id not in bound:
            out.add(node.id)
        return out
    if isinstance(node, (tuple, list)):
        for item in node:
            out |= free_names(item, bound)
        return out
    if isinstance(node, A.Comprehension):
        inner = bound | set(node.targets)
        return free_names(node.iter, bound) | free_names(node.elt, inner) | free_names(node.conds, inner)
    if isinstance(node, A.Quantifier):
        return free_names(node.domain, bound) | free_names(node.body, bound | set(node.targets))
    if isinstance(node, (A.Span, A.TypeRef, A.Range, A.Alphabet)):
        return out
    for f in getattr(node, "__dataclass_fields__", {}):
        if f != "span":
            out |= free_names(getattr(node, f), bound)
    return out


def substitute(node: Any, mapping: Mapping[str, A.Expr]) -> Any:
    """Replace free occurrences of ``mapping``'s names in ``node`` by the mapped expressions.

    A comprehension or quantifier that rebinds a name shadows it (no replacement inside). Capture of a
    mapped expression's free names by an inner binder is not renamed away (a known limitation: give a
    ``let`` a name no quantifier in its scope rebinds).

    Args:
        node: an expression, clause, statement, or tuple of them.
        mapping: name -> replacement expression.

    Returns:
        A new node (unchanged parts are shared).
    """
    if not mapping:
        return node
    if isinstance(node, A.Name):
        return mapping.get(node.id, node)
    if isinstance(node, tuple):
        return tuple(substitute(n, mapping) for n in node)
    if isinstance(node, (A.Comprehension, A.Quantifier)):
        inner = {k: v for k, v in mapping.items() if k not in node.targets}
        if isinstance(node, A.Comprehension):
            return replace(node, iter=substitute(node.iter, mapping), elt=substitute(node.elt, inner),
                           conds=substitute(node.conds, inner))
        return replace(node, domain=substitute(node.domain, mapping), body=substitute(node.body, inner))
    if isinstance(node, (A.Span, A.TypeRef, A.Range, A.Alphabet, str, int, float, bytes, bool)) or node is None:
        return node
    if not hasattr(node, "__dataclass_fields__"):
        return node
    changes = {f.name: substitute(getattr(node, f.name), mapping) for f in fields(node) if f.name != "span"}
    return replace(node, **changes)


def inline_lets(clauses: Iterable[A.Clause], outer: Mapping[str, A.Expr] | None = None) -> tuple[A.Clause, ...]:
    """Substitute each ``let`` clause into the clauses after it and drop the ``let`` clauses.

    Args:
        clauses: a requirement's clauses in source order.
        outer: bindings already in force (e.g. a config's ``let`` declarations).

    Returns:
        The clauses without :class:`~evalgap.specs_lang.ast.Let`, with every use of a let name replaced.
    """
    env: dict[str, A.Expr] = dict(outer or {})
    out: list[A.Clause] = []
    for c in clauses:
        if isinstance(c, A.Let):
            env[c.name] = substitute(c.value, env)
        else:
            out.append(substitute(c, env))
    return tuple(out)


def _num(v: int | float) -> A.Expr:
    return A.UnaryOp("-", A.Const(-v)) if v < 0 else A.Const(v)


def _range_cond(subject: A.Expr, r: A.Range) -> A.Expr:
    return A.Compare(_num(r.lo), ("<=", "<="), (subject, _num(r.hi)))


def _type_conditions(subject: A.Expr, t: A.TypeRef, depth: int) -> list[A.Expr]:
    conds: list[A.Expr] = []
    if t.range is not None:
        conds.append(_range_cond(subject, t.range))
    if t.length is not None:
        conds.append(_range_cond(A.Call(A.Name("len"), (subject,)), t.length))
    if t.alphabet is not None:
        var = f"_eg_c{depth}"
        conds.append(A.Quantifier("forall", (var,), subject,
                                  A.Compare(A.Name(var), ("in",), (A.Const(t.alphabet.chars),))))
    base = t.name.split(".")[-1]
    if base in _ELEMENT_TYPES and t.args and t.args[0].narrowed:
        var = f"_eg_e{depth}"
        inner = _conj(_type_conditions(A.Name(var), t.args[0], depth + 1))
        conds.append(A.Quantifier("forall", (var,), subject, inner))
    elif base in _DICT_TYPES and len(t.args) == 2 and (t.args[0].narrowed or t.args[1].narrowed):
        k, v = f"_eg_k{depth}", f"_eg_v{depth}"
        inner = _conj(_type_conditions(A.Name(k), t.args[0], depth + 1)
                      + _type_conditions(A.Name(v), t.args[1], depth + 1))
        items = A.Call(A.Attribute(subject, "items"), ())
        conds.append(A.Quantifier("forall", (k, v), items, inner))
    elif base in _OPTIONAL and t.args and t.args[0].narrowed:
        inner = _conj(_type_conditions(subject, t.args[0], depth + 1))
        conds.append(A.BoolOp("or", (A.Compare(subject, ("is",), (A.Const(None),)), inner)))
    elif base in _TUPLE and any(a.narrowed for a in t.args):
        for i, a in enumerate(t.args):
            if a.narrowed:
                conds.extend(_type_conditions(A.Subscript(subject, A.Const(i)), a, depth + 1))
    return conds


def _conj(conds: list[A.Expr]) -> A.Expr:
    if not conds:
        return A.Const(True)
    return conds[0] if len(conds) == 1 else A.BoolOp("and", tuple(conds))


def domain_conditions(param: A.Param) -> list[A.Expr]:
    """The conditions ``param``'s narrowings impose on its value, as spec expressions over ``param.name``.

    ``n: int in 0..9`` gives ``0 <= n <= 9``; ``xs: list[int in 0..9] len 1..5`` gives
    ``1 <= len(xs) <= 5`` and ``forall _eg_e0 in xs: 0 <= _eg_e0 <= 9``; ``s: str digits`` gives
    ``forall _eg_c0 in s: _eg_c0 in "0123456789"``. Bounds are inclusive.

    Args:
        param: a parameter (or record field).

    Returns:
        The conditions, outermost first; empty when the type carries no narrowing.
    """
    return _type_conditions(A.Name(param.name), param.type, 0)


def _range_text(r: A.Range) -> str:
    return f"{r.lo!r}..{r.hi!r}"


def type_text(t: A.TypeRef) -> str:
    """A type as the spec writes it, narrowings included (``list[int in 0..9] len 1..5``)."""
    out = t.name
    if t.args:
        out += "[" + ", ".join(type_text(a) for a in t.args) + "]"
    if t.range is not None:
        out += f" in {_range_text(t.range)}"
    if t.length is not None:
        out += f" len {_range_text(t.length)}"
    if t.alphabet is not None:
        out += f" {t.alphabet.name}" if t.alphabet.name != "chars" else f" chars {t.alphabet.chars!r}"
    return out


def narrowing_text(param: A.Param) -> str | None:
    """``name: type`` with its narrowings when the type is narrowed, else None (for report assumptions)."""
    return f"{param.name}: {type_text(param.type)}" if param.type.narrowed else None


def helper_names(spec: A.Spec) -> set[str]:
    """Names a spec defines itself: ``let``, ``def``, ``record`` and stub names (first component)."""
    return ({lt.name for lt in spec.lets} | {d.name for d in spec.defs} | {r.name for r in spec.records})


def applicable_assumptions(spec: A.Spec, params: Iterable[str]) -> list[A.Assume]:
    """The ``assume`` declarations that apply where ``params`` are bound.

    An assumption applies when it reads at least one name that is neither a builtin nor a spec helper,
    and every such name is among ``params``.

    Args:
        spec: the spec holding the assumptions and helpers.
        params: names bound at the place of use (function, method or scenario parameters, config fields).

    Returns:
        The applicable assumptions in source order.
    """
    bound = set(params)
    known = BUILTIN_NAMES | helper_names(spec)
    out = []
    for a in spec.assumptions:
        names = free_names(a.expr) - known
        if names and names <= bound:
            out.append(a)
    return out
