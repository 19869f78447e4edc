"""Type checking of the allow-listed standard library (:mod:`evalgap.specs_lang.stdlib`) in clauses:
``re.fullmatch(...)`` is a call of an allowed function, ``bisect.insort`` is EG229 (not allowed: it mutates),
``datetime.datetime.now()`` is EG219 (impure: it reads the clock)."""

from __future__ import annotations

from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.diagnostics import IMPURE_CALL, STDLIB_NOT_ALLOWED
from evalgap.specs_lang.stdlib import IMPURE_STDLIB, STDLIB, member_kind
from evalgap.specs_lang.typecheck_base import ANY, BOOL, INT, Ty, suggest

__all__ = ["stdlib_attribute", "kind_type"]

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
