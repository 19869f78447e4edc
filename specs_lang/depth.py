"""How deeply a parsed spec nests, checked before anything recursive walks it (issue 19).

The type checker, the lowering to contracts and the Z3 translation are recursive over the syntax tree; a
500-deep ``list[list[...]]`` or ``((((x))))`` would hit Python's recursion limit inside them. This walk is
iterative: it finds the deepest node and reports EG106 there, so a too-deep spec is a diagnostic with file,
line and column, never a ``RecursionError``.
"""

from __future__ import annotations

from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.astwalk import children
from evalgap.specs_lang.diagnostics import NESTED_TOO_DEEPLY
from evalgap.specs_lang.errors import Diagnostic

__all__ = ["MAX_DEPTH", "depth_diagnostics"]

#: The deepest nesting of expressions and types accepted (syntax-tree levels below a clause or parameter).
#: Real specs stay below 30; the recursive passes need about 4 Python frames per level.
MAX_DEPTH = 100


def depth_diagnostics(spec: A.Spec, limit: int = MAX_DEPTH) -> list[Diagnostic]:
    """EG106 at the deepest point of each top-level declaration nested more than ``limit`` levels.

    Args:
        spec: the parsed spec.
        limit: the largest accepted depth, in syntax-tree levels.

    Returns:
        One diagnostic per too-deep declaration (empty when the spec is fine), at the deepest node's span.
    """
    def _span_of(node: Any) -> A.Span:
        span = getattr(node, "span", None)
        return span if isinstance(span, A.Span) else A.NOSPAN

    out: list[Diagnostic] = []
    roots: list[Any] = [*spec.requirements, *spec.functions, *spec.classes, *spec.assumptions, *spec.lets,
                        *spec.defs, *spec.records, *spec.configs, *spec.stubs]
    for root in roots:
        deepest, where = _deepest(root)
        if deepest > limit:
            out.append(Diagnostic(
                NESTED_TOO_DEEPLY, where if isinstance(where, A.Span) else _span_of(root),
                f"nested too deeply: {deepest} levels here, at most {limit} are accepted",
                "name parts of the expression with `let` (or a `record` for a type) to nest less"))
    return out


def _deepest(root: Any) -> tuple[int, A.Span | None]:
    """(depth, span) of the deepest node under ``root``; tuples do not count as a level."""
    best, where = 0, None
    stack: list[tuple[Any, int, A.Span | None]] = [(root, 0, None)]
    while stack:
        node, depth, span = stack.pop()
        if isinstance(node, (str, bytes, int, float, bool, type(None), A.Span)):
            continue
        level = depth if isinstance(node, (tuple, list)) else depth + 1
        here = getattr(node, "span", None)
        if isinstance(here, A.Span) and here is not A.NOSPAN:
            span = here
        if level > best:
            best, where = level, span
        stack.extend((child, level, span) for child in children(node))
    return best, where
