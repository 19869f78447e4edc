"""Type checking of the allow-listed standard library (:mod:`evalgap.specs_lang.stdlib`) in clauses:
``re.fullmatch(...)`` is a call of an allowed function, ``bisect.insort`` is EG229 (not allowed: it mutates),
``datetime.datetime.now()`` is EG219 (impure: it reads the clock); and of the control flow of scenarios
(``for`` and ``if`` statements, :func:`control_flow`)."""

from __future__ import annotations

from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.diagnostics import IMPURE_CALL, STDLIB_NOT_ALLOWED, TYPE_MISMATCH
from evalgap.specs_lang.stdlib import IMPURE_STDLIB, STDLIB, STDLIB_MODULES, member_kind
from evalgap.specs_lang.typecheck_base import ANY, BOOL, INT, Ty, suggest

__all__ = ["stdlib_attribute", "kind_type", "control_flow", "STDLIB_MODULES"]

_KINDS: dict[str, Ty] = {"str": ("str",), "int": INT, "bool": BOOL, "list[str]": ("list", ("str",)),
                         "list": ("list", ANY), "tuple": ("tuple",), "any": ANY}


def kind_type(kind: str) -> Ty:
    """The checker's type of an allow-listed value kind (``str`` -> ``("str",)``)."""
    return _KINDS.get(kind, ANY)


def stdlib_attribute(checker: Any, e: A.Attribute, base: Ty) -> Ty | None:
    """The type of ``e`` when its base is an allowed module or class (reporting EG229/EG219 on ``checker``),
    else None (not a standard-library access)."""
    if base[0] == "module":
        module = str(base[1])
        kind = member_kind(module, e.attr)
        if kind is None:
            checker.diag(STDLIB_NOT_ALLOWED, e.span, f"`{module}.{e.attr}` is not in the allow-listed standard "
                         "library (docs/language.md)", suggest(e.attr, list(STDLIB[module])))
            return ANY
        if kind == "class":
            return ("stdclass", f"{module}.{e.attr}")
        if kind.startswith("const:"):
            return kind_type(kind[len("const:"):])
        return ("stdfn", kind_type(kind))
    if base[0] == "stdclass":
        if e.attr in IMPURE_STDLIB:
            checker.diag(IMPURE_CALL, e.span, f"`{base[1]}.{e.attr}` reads the clock or the environment",
                         "pass the time as a parameter of the scenario or the function instead")
        return ANY
    return None


def control_flow(checker: Any, st: A.Stmt, ctx: Any) -> None:
    """Check a scenario's ``for`` (the loop names bound in its body, the iterable a collection) or ``if``
    statement; the bodies go back to ``checker.stmts`` (names assigned in a block stay visible after it, as
    in Python)."""
    if isinstance(st, A.For):
        it = checker.expr(st.iter, ctx)
        if it[0] in ("int", "float", "bool", "None"):
            checker.diag(TYPE_MISMATCH, st.iter.span, f"`for` over a {it[0]}, which is not iterable",
                         "iterate over a list, a string or `range(n)`")
        elem = it[1] if it[0] in ("list", "set") and len(st.targets) == 1 else ANY
        for name in st.targets:
            ctx.scope[name] = elem
        checker.stmts(st.body, ctx.scope)
    elif isinstance(st, A.If):
        checker.expr(st.test, ctx)
        checker.stmts(st.body, ctx.scope)
        checker.stmts(st.orelse, ctx.scope)
