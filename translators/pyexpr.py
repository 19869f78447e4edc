"""Spec expressions (:mod:`evalgap.specs_lang.ast`) to Python source with the documented meaning.

Every compound is parenthesized, so the output never depends on Python's precedence table:
``a ==> b`` becomes ``(not (a) or (b))``, ``a <==> b`` becomes ``(bool(a) == bool(b))``,
``forall x in S: P`` becomes ``all((P) for x in (S))`` and ``exists`` becomes ``any(...)``. Chained
comparisons stay chained (Python evaluates the middle operand once, which is the documented meaning).
"""

from __future__ import annotations

from typing import Callable

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct

__all__ = ["to_python", "free_names"]

_Handler = Callable[[object, Callable[[object], str]], str]


def _targets(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"


def _call(n: A.Call, py: Callable[[object], str]) -> str:
    if isinstance(n.func, A.Name) and n.func.id == "old":
        raise UnsupportedConstruct("old()", n.span, "pre-state values are not yet compiled to icontract")
    parts = [py(a) for a in n.args] + [f"{k.name}={py(k.value)}" for k in n.keywords]
    return f"{py(n.func)}({', '.join(parts)})"


def _slice(n: A.Slice, py: Callable[[object], str]) -> str:
    def part(e: A.Expr | None) -> str:
        return "" if e is None else py(e)
    s = f"{part(n.lower)}:{part(n.upper)}"
    return s + (f":{part(n.step)}" if n.step is not None else "")


def _comprehension(n: A.Comprehension, py: Callable[[object], str]) -> str:
    conds = "".join(f" if ({py(c)})" for c in n.conds)
    inner = f"({py(n.elt)}) for {_targets(n.targets)} in ({py(n.iter)}){conds}"
    return {"list": f"[{inner}]", "set": f"{{{inner}}}", "gen": f"({inner})"}[n.kind]


def _tuple(n: A.TupleExpr, py: Callable[[object], str]) -> str:
    if len(n.elts) == 1:
        return f"({py(n.elts[0])},)"
    return "(" + ", ".join(py(e) for e in n.elts) + ")"


_HANDLERS: dict[type, Callable[..., str]] = {
    A.Name: lambda n, py: n.id,
    A.Const: lambda n, py: repr(n.value),
    A.BinOp: lambda n, py: f"({py(n.left)} {n.op} {py(n.right)})",
    A.UnaryOp: lambda n, py: f"({n.op}{py(n.operand)})",
    A.BoolOp: lambda n, py: "(" + f" {n.op} ".join(py(v) for v in n.values) + ")",
    A.Not: lambda n, py: f"(not {py(n.operand)})",
    A.Compare: lambda n, py: "(" + py(n.left) + "".join(f" {o} {py(c)}" for o, c in zip(n.ops, n.comparators))
    + ")",
    A.Implies: lambda n, py: f"(not ({py(n.left)}) or ({py(n.right)}))",
    A.Iff: lambda n, py: f"(bool({py(n.left)}) == bool({py(n.right)}))",
    A.IfExp: lambda n, py: f"({py(n.body)} if {py(n.test)} else {py(n.orelse)})",
    A.Call: _call,
    A.Attribute: lambda n, py: f"{py(n.value)}.{n.attr}",
    A.Subscript: lambda n, py: f"{py(n.value)}[{py(n.index)}]",
    A.Slice: _slice,
    A.ListExpr: lambda n, py: "[" + ", ".join(py(e) for e in n.elts) + "]",
    A.TupleExpr: _tuple,
    A.SetExpr: lambda n, py: "{" + ", ".join(py(e) for e in n.elts) + "}",
    A.DictExpr: lambda n, py: "{" + ", ".join(f"{py(k)}: {py(v)}" for k, v in zip(n.keys, n.values)) + "}",
    A.Comprehension: _comprehension,
    A.Quantifier: lambda n, py: ("all" if n.kind == "forall" else "any")
    + f"(({py(n.body)}) for {_targets(n.targets)} in ({py(n.domain)}))",
}


def to_python(node: object) -> str:
    """Python source for a spec expression.

    Args:
        node: an :data:`evalgap.specs_lang.ast.Expr` (or a :class:`Slice`).

    Returns:
        A Python expression string with the spec's meaning.

    Raises:
        UnsupportedConstruct: for constructs not yet compiled (``old()``).
    """
    handler = _HANDLERS.get(type(node))
    if handler is None:
        raise UnsupportedConstruct(type(node).__name__, getattr(node, "span", A.NOSPAN))
    return handler(node, to_python)


def free_names(node: object, bound: frozenset[str] = frozenset()) -> set[str]:
    """Names an expression reads that it does not bind itself (comprehension and quantifier
    variables are bound inside their body).

    Args:
        node: an expression, statement, clause, or a tuple of them.
        bound: names already bound by the context (parameters, ``result``).

    Returns:
        The set of free identifiers, excluding ``bound``.
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
        out |= free_names(node.iter, bound)
        out |= free_names(node.elt, inner) | free_names(node.conds, inner)
        return out
    if isinstance(node, A.Quantifier):
        out |= free_names(node.domain, bound)
        out |= free_names(node.body, bound | set(node.targets))
        return out
    if isinstance(node, A.Keyword):
        return free_names(node.value, bound)
    fields = getattr(node, "__dataclass_fields__", None)
    if fields:
        for name in fields:
            if name != "span":
                out |= free_names(getattr(node, name), bound)
    return out
