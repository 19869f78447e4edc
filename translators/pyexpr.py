"""Spec expressions (:mod:`evalgap.specs_lang.ast`) to Python source with the documented meaning.

Every compound is parenthesized, so the output never depends on Python's precedence table:
``a ==> b`` becomes ``(not (a) or (b))``, ``a <==> b`` becomes ``(bool(a) == bool(b))``,
``forall x in S: P`` becomes ``all((P) for x in (S))`` and ``exists`` becomes ``any(...)``. Chained
comparisons stay chained (Python evaluates the middle operand once, which is the documented meaning).
"""

from __future__ import annotations

from typing import Callable, Mapping

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import free_names
from evalgap.translators.errors import UnsupportedConstruct

__all__ = ["to_python", "free_names", "collect_old"]

_Handler = Callable[[object, Callable[[object], str]], str]


def _targets(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"


def _call(n: A.Call, py: Callable[[object], str]) -> str:
    if isinstance(n.func, A.Name) and n.func.id == "old":
        raise UnsupportedConstruct("old()", n.span, "`old` takes exactly one argument")
    if len(n.args) == 1 and not n.keywords and isinstance(n.args[0], A.Comprehension) and n.args[0].kind == "gen":
        return f"{py(n.func)}{py(n.args[0])}"
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


def to_python(node: object, old: Mapping[A.Old, str] | None = None) -> str:
    """Python source for a spec expression.

    Args:
        node: an :data:`evalgap.specs_lang.ast.Expr` (or a :class:`Slice`).
        old: Python source for each ``old(EXPR)`` node (e.g. ``OLD.eg_old_0`` for an icontract snapshot, or
            a local variable); without it, ``old()`` is unsupported.

    Returns:
        A Python expression string with the spec's meaning.

    Raises:
        UnsupportedConstruct: ``old()`` where no pre-state value is available.
    """
    def py(n: object) -> str:
        if isinstance(n, A.Old):
            if old is None or n not in old:
                raise UnsupportedConstruct("old()", n.span, "pre-state values exist only in postconditions")
            return old[n]
        handler = _HANDLERS.get(type(n))
        if handler is None:
            raise UnsupportedConstruct(type(n).__name__, getattr(n, "span", A.NOSPAN))
        return handler(n, py)

    return py(node)


def collect_old(node: object) -> list[A.Old]:
    """Every distinct ``old(EXPR)`` node inside ``node``, in pre-order (equal nodes once)."""
    out: list[A.Old] = []

    def walk(n: object) -> None:
        if isinstance(n, A.Old):
            if n not in out:
                out.append(n)
            return
        if isinstance(n, (tuple, list)):
            for x in n:
                walk(x)
            return
        for f in getattr(n, "__dataclass_fields__", {}):
            if f != "span":
                walk(getattr(n, f))

    walk(node)
    return out
