"""The type vocabulary of the spec checker (:mod:`evalgap.specs_lang.typecheck`): inferred types, the
builtins a spec may and may not call, and the operator rules (which operand kinds ``+ - * / %`` accept).

An inferred type is a tuple: ``("int",)``, ``("list", elem)``, ``("dict", k, v)``, ``("obj", class)``,
``("rec", name)``, ``("any",)`` ...; an unknown type never produces a diagnostic.
"""

from __future__ import annotations

import builtins
import difflib
from dataclasses import dataclass, field
from typing import Any, Iterable, Tuple

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.signatures import ParamSig

__all__ = ["Ty", "ANY", "BOOL", "INT", "PURE_BUILTINS", "IMPURE_BUILTINS", "binop_result", "suggest"]

#: An inferred type: ("int",), ("list", elem), ("dict", k, v), ("obj", class), ("rec", name), ("any",) ...
Ty = Tuple[Any, ...]
ANY: Ty = ("any",)
BOOL: Ty = ("bool",)
INT: Ty = ("int",)

#: Builtins a spec expression may call (pure functions and constructors).
PURE_BUILTINS = frozenset({
    "len", "sum", "min", "max", "abs", "sorted", "set", "all", "any", "range", "list", "tuple", "dict",
    "frozenset", "reversed", "enumerate", "zip", "map", "filter", "int", "float", "str", "bool", "bytes",
    "round", "isinstance", "divmod", "pow", "chr", "ord", "repr", "hash", "type", "iter", "next", "bin", "hex",
    "oct", "format", "callable", "hasattr", "getattr", "slice", "bytearray", "complex", "id",
})
#: Builtins with effects or that run arbitrary code: never allowed in a spec.
IMPURE_BUILTINS = frozenset({
    "print", "open", "input", "exec", "eval", "compile", "__import__", "exit", "quit", "setattr", "delattr",
    "globals", "locals", "vars", "breakpoint", "help", "memoryview", "super", "object", "property",
    "staticmethod", "classmethod",
})
_EXCEPTIONS = frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
                        and issubclass(getattr(builtins, n), BaseException))
_BUILTIN_RETURNS: dict[str, Ty] = {
    "len": INT, "all": BOOL, "any": BOOL, "isinstance": BOOL, "int": INT, "float": ("float",), "str": ("str",),
    "bool": BOOL, "bytes": ("bytes",), "chr": ("str",), "ord": INT, "repr": ("str",), "hash": INT,
    "callable": BOOL, "hasattr": BOOL, "bin": ("str",), "hex": ("str",), "oct": ("str",), "format": ("str",),
    "range": ("list", INT),
}
_SIMPLE = {"int": INT, "float": ("float",), "bool": BOOL, "str": ("str",), "bytes": ("bytes",), "None": ("None",)}
_SEQ = {"list": "list", "List": "list", "Sequence": "list", "set": "set", "Set": "set", "frozenset": "set",
        "FrozenSet": "set", "dict": "dict", "Dict": "dict", "Mapping": "dict", "tuple": "tuple", "Tuple": "tuple"}
_TYPING = {"Any", "Optional", "Union", "Iterable", "Collection", "Callable", "object", "[]"}
_NUM = {"int", "float", "bool"}
#: Every type name the spec language knows without a record or a target class (the typing names included).
TYPE_NAMES: frozenset[str] = frozenset(_SIMPLE) | frozenset(_SEQ) | frozenset(_TYPING - {"[]"})


def _family(t: Ty) -> str | None:
    """A coarse kind for compatibility checks, or None when unknown."""
    if t[0] in _NUM:
        return "number"
    if t[0] in ("str", "bytes", "list", "set", "dict", "tuple", "None"):
        return str(t[0])
    return None


def _show(t: Ty) -> str:
    if t[0] in ("list", "set") and len(t) > 1 and t[1] != ANY:
        return f"{t[0]}[{_show(t[1])}]"
    if t[0] in ("obj", "rec"):
        return str(t[1])
    return str(t[0])


@dataclass
class _Ctx:
    """Where an expression sits: the names in scope and what is allowed."""

    scope: dict[str, Ty] = field(default_factory=dict)
    allow_result: bool = False
    allow_old: bool = False
    where: str = "requirement"


def binop_result(op: str, a: Ty, b: Ty) -> Ty | None:
    """The type of ``a op b``: ANY when an operand's kind is unknown, None when Python raises TypeError."""
    fa, fb = _family(a), _family(b)
    if fa is None or fb is None:
        return ANY
    ok = {("number", "number")}
    if op == "+":
        ok |= {(k, k) for k in ("str", "bytes", "list", "tuple")}
    elif op == "*":
        ok |= {(k, "number") for k in ("str", "bytes", "list", "tuple")}
        ok |= {("number", k) for k in ("str", "bytes", "list", "tuple")}
    elif op == "-":
        ok |= {("set", "set")}
    elif op == "%":
        ok |= {("str", k) for k in ("number", "str", "bytes", "list", "set", "dict", "tuple", "None")}
    if (fa, fb) not in ok:
        return None
    if fa == "number" and fb == "number":
        if op == "/" or "float" in (a[0], b[0]):
            return ("float",)
        return INT
    return a if fa != "number" else b


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """``did you mean `X`?`` for the closest candidate (difflib ratio >= 0.6), or None."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _head(span: A.Span, keyword: str, name: str) -> A.Span:
    """The span of ``name`` in a header line ``keyword name...`` starting at ``span``."""
    col = span.col + len(keyword) + 1
    return A.Span(span.file, span.line, col, span.line, col + len(name))


def _psig(p: A.Param) -> ParamSig:
    return ParamSig(p.name)


def _children(e: object) -> list[A.Expr]:
    if isinstance(e, A.BoolOp):
        return list(e.values)
    if isinstance(e, A.Not):
        return [e.operand]
    if isinstance(e, (A.Implies, A.Iff)):
        return [e.left, e.right]
    return []
