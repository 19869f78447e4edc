"""Checks of the stateful constructs: ``model`` blocks and call-sequence bounds (``up to N calls``).

Structure (no target needed): a ``model`` only directly under a ``class`` (EG218), each operation a declared
method of the class with the method's parameter names in order (EG226), a bound from 1 to
:data:`~evalgap.specs_lang.ast.MAX_SEQUENCE_CALLS` on a ``model`` or an ``invariant`` (EG227), operations a
model can run (EG228). Types: each operation's action is type-checked with ``model`` and the method's
parameters in scope (:func:`check_model_types`, called by the type checker).
"""

from __future__ import annotations

from typing import Any, Callable

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.diagnostics import (MISPLACED_CLAUSE, MODEL_BAD_OPERATION, MODEL_UNKNOWN_OPERATION,
                                            SEQUENCE_BOUND)
from evalgap.specs_lang.errors import Diagnostic

__all__ = ["model_diagnostics", "check_model_types", "model_methods", "is_class_ref"]


def is_class_ref(e: A.Expr) -> bool:
    """Whether a model reference is a (dotted) name, i.e. a reference class rather than a dict/list value."""
    while isinstance(e, A.Attribute):
        e = e.value
    return isinstance(e, A.Name)


def model_methods(cls: A.ClassDecl, model: A.Model) -> list[tuple[A.MethodDecl, A.ModelOp]]:
    """The compared operations of ``model``: each listed operation with its declared method (unknown ones
    left out), or every declared method but ``__init__`` as a bare call when the block lists none."""
    methods = {m.name: m for m in cls.methods if m.name != "__init__"}
    if not model.ops:
        return [(m, A.ModelOp(m.name, tuple(p.name for p in m.params), span=m.span)) for m in methods.values()]
    return [(methods[op.name], op) for op in model.ops if op.name in methods]


def _bound(n: int | None, span: A.Span, what: str, out: list[Diagnostic]) -> None:
    if n is not None and not 1 <= n <= A.MAX_SEQUENCE_CALLS:
        out.append(Diagnostic(SEQUENCE_BOUND, span, f"{what} bound `up to {n} calls` is outside 1..{A.MAX_SEQUENCE_CALLS}",
                              f"state a bound from 1 to {A.MAX_SEQUENCE_CALLS}"))


def _model_target(e: A.Expr | None) -> bool:
    if not isinstance(e, (A.Subscript, A.Attribute)):
        return False
    base = e.value
    while isinstance(base, (A.Subscript, A.Attribute)):
        base = base.value
    return isinstance(base, A.Name) and base.id == "model"


def _model(cls: A.ClassDecl, m: A.Model, out: list[Diagnostic]) -> None:
    _bound(m.max_calls, m.span, "the model's", out)
    methods = {d.name: d for d in cls.methods if d.name != "__init__"}
    if not methods:
        out.append(Diagnostic(MODEL_BAD_OPERATION, m.span, f"class {cls.name} declares no method to compare",
                              "declare the compared methods with `method NAME(params) -> type`"))
    if not m.ops and not is_class_ref(m.ref):
        out.append(Diagnostic(MODEL_BAD_OPERATION, m.span, "a dict/list model needs its operations",
                              "list each operation, e.g. `get(key): model[key]`"))
    for op in m.ops:
        decl = methods.get(op.name)
        if decl is None:
            out.append(Diagnostic(MODEL_UNKNOWN_OPERATION, op.span, f"`{op.name}` is not a declared method of "
                                  f"class {cls.name}", "declared: " + (", ".join(methods) or "none")))
        elif op.params != tuple(p.name for p in decl.params):
            out.append(Diagnostic(MODEL_UNKNOWN_OPERATION, op.span, f"operation `{op.name}({', '.join(op.params)})`"
                                  f": the method is declared as {op.name}({', '.join(p.name for p in decl.params)})",
                                  "name the method's parameters in the same order"))
        if op.kind in ("assign", "delete") and not _model_target(op.target):
            out.append(Diagnostic(MODEL_BAD_OPERATION, op.span, f"operation `{op.name}` assigns or deletes "
                                  "something other than an item or attribute of `model`",
                                  "write `model[k] = v`, `model.attr = v` or `del model[k]`"))
        if op.kind == "call" and not is_class_ref(m.ref):
            out.append(Diagnostic(MODEL_BAD_OPERATION, op.span, f"operation `{op.name}` has no action, but the "
                                  "model is a value, not a class", f"write `{op.name}(...): EXPR`"))


def model_diagnostics(spec: A.Spec) -> list[Diagnostic]:
    """EG218, EG226, EG227 and EG228 for every ``model`` and bounded ``invariant`` of ``spec``.

    Args:
        spec: the parsed spec.

    Returns:
        The diagnostics, in no particular order (the caller sorts).
    """
    out: list[Diagnostic] = []
    for req, owner in spec.all_requirements():
        for c in req.clauses:
            if isinstance(c, A.Invariant):
                _bound(c.max_calls, c.span, "the invariant's", out)
            elif isinstance(c, A.Model):
                if isinstance(owner, A.ClassDecl):
                    _model(owner, c, out)
                else:
                    out.append(Diagnostic(MISPLACED_CLAUSE, c.span, "`model` belongs directly under a `class`",
                                          "move the requirement under `class NAME` beside the declared methods"))
    return out


def check_model_types(cls: A.ClassDecl, typed: Callable[[A.Expr, dict[str, Any]], object],
                      param_types: Callable[[tuple[A.Param, ...]], dict[str, Any]], any_type: Any) -> None:
    """Type-check every model action of ``cls``'s requirements: ``typed(expr, scope)`` with ``model`` (of
    unknown type) and the operation's method parameters in scope."""
    for req in cls.requirements:
        for c in req.clauses:
            if not isinstance(c, A.Model):
                continue
            if not is_class_ref(c.ref):
                typed(c.ref, {})
            for decl, op in model_methods(cls, c):
                scope = {"model": any_type, **param_types(decl.params)}
                for e in (op.value, op.target):
                    if e is not None:
                        typed(e, scope)
