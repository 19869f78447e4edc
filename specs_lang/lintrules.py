"""Spec-level checks that catch accepted nonsense (issue 19): an empty spec (EG223), an empty range such
as ``n: int in 10..0`` (EG224) and dunder attribute access in a clause (EG225).

The dunder rule is not the sandbox (the checked code is contained by the worker's isolation whatever the
spec says); it keeps a spec from reaching into the interpreter (``n.__class__.__mro__[1].__subclasses__()``),
which no requirement needs and which makes a clause's meaning depend on CPython internals.
"""

from __future__ import annotations

from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.astwalk import children
from evalgap.specs_lang.diagnostics import DUNDER_ACCESS, EMPTY_RANGE, EMPTY_SPEC
from evalgap.specs_lang.errors import Diagnostic

__all__ = ["lint_diagnostics"]


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _walk(root: Any) -> list[Any]:
    """Every dataclass node under ``root`` (iterative; depth is bounded by :mod:`.depth` beforehand)."""
    out: list[Any] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(node)
        else:
            kids = children(node)  # every AST node has fields (its span at least); a leaf has none
            if kids:
                out.append(node)
                stack.extend(kids)
    return out


def lint_diagnostics(spec: A.Spec) -> list[Diagnostic]:
    """EG223 (no requirement at all), EG224 (a range whose low bound is above its high bound) and EG225 (a
    dunder attribute, or ``getattr`` of a dunder name, in a clause).

    Args:
        spec: the parsed spec (imports merged).

    Returns:
        The diagnostics, in no particular order (the caller sorts).
    """
    out: list[Diagnostic] = []
    if not spec.all_requirements() and not spec.configs:
        out.append(Diagnostic(EMPTY_SPEC, A.Span(spec.file, 1, 1, 1, 2), "the spec states no requirement",
                              "add `requirement ID \"prose\"` blocks (under a `function` for formal clauses); "
                              "an empty spec would check nothing and pass"))
    roots: list[Any] = [*spec.requirements, *spec.functions, *spec.classes, *spec.assumptions, *spec.lets,
                        *spec.defs, *spec.records, *spec.configs, *spec.stubs]
    for node in (n for root in roots for n in _walk(root)):
        if isinstance(node, A.TypeRef):
            for kind, rng in (("range", node.range), ("length", node.length)):
                if rng is not None and rng.lo > rng.hi:
                    out.append(Diagnostic(EMPTY_RANGE, rng.span if rng.span is not A.NOSPAN else node.span,
                                          f"empty {kind} {rng.lo}..{rng.hi}: no value lies in it",
                                          f"write the low bound first: {rng.hi}..{rng.lo}"))
        elif isinstance(node, A.Attribute) and _is_dunder(node.attr):
            out.append(Diagnostic(DUNDER_ACCESS, node.span, f"dunder attribute `.{node.attr}` in a clause",
                                  "state the property through the value's public interface"))
        elif (isinstance(node, A.Call) and isinstance(node.func, A.Name) and node.func.id in ("getattr", "hasattr")
              and any(isinstance(a, A.Const) and isinstance(a.value, str) and _is_dunder(a.value)
                      for a in node.args)):
            out.append(Diagnostic(DUNDER_ACCESS, node.span, f"`{node.func.id}` of a dunder name in a clause",
                                  "state the property through the value's public interface"))
    return out
