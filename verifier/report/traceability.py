"""Traceability from requirements to the target's functions, read statically (no import of the target).

A requirement *exercises* a target function when:

* it sits under ``function f`` (``f``) or ``method m`` of ``class C`` (``C.m``); a class-level requirement
  (an invariant) exercises every method of its class;
* its clauses call the function: ``f(...)`` names ``f`` or, for a class ``C``, ``C.__init__``;
  ``x.m(...)`` names every method ``m`` of every class of the target (receivers are not typed here).

Names are resolved against the definitions found by parsing the target file with :mod:`ast`, so only
functions that exist in the target are listed.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from evalgap.specs_lang import ast as A

__all__ = ["target_definitions", "requirement_functions"]


def target_definitions(path: str | Path | None) -> dict[str, int]:
    """Qualified name -> 1-based line of every function, method and class defined in a Python file.

    Args:
        path: the target's ``.py`` file; None or an unreadable/unparsable file gives ``{}``.

    Returns:
        e.g. ``{"KVStore": 10, "KVStore.__init__": 12, "KVStore.put": 15, "helper": 30}`` (nested
        functions are not listed).
    """
    if path is None:
        return {}
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return {}
    out: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node.lineno
        elif isinstance(node, ast.ClassDef):
            out[node.name] = node.lineno
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{node.name}.{sub.name}"] = sub.lineno
    return out


def _called_names(node: object, out: set[tuple[str, str]]) -> None:
    """Collect ``("name", f)`` and ``("attr", m)`` for every call in a spec AST subtree."""
    if isinstance(node, A.Call):
        if isinstance(node.func, A.Name):
            out.add(("name", node.func.id))
        elif isinstance(node.func, A.Attribute):
            out.add(("attr", node.func.attr))
    if isinstance(node, tuple):
        for item in node:
            _called_names(item, out)
    elif dataclasses.is_dataclass(node) and not isinstance(node, (A.Span, type)):
        for f in dataclasses.fields(node):
            if f.name != "span":
                _called_names(getattr(node, f.name), out)


def requirement_functions(req: A.Requirement, owner: object, spec: A.Spec, defs: dict[str, int]) -> tuple[str, ...]:
    """The target functions (qualified names, keys of ``defs``) that requirement ``req`` exercises.

    Args:
        req: the requirement.
        owner: its declaration from :meth:`Spec.all_requirements` (FunctionDecl, MethodDecl, ClassDecl, None).
        spec: the spec (to find a method's class).
        defs: :func:`target_definitions` of the target.

    Returns:
        Sorted qualified names; a class name itself appears only when the class has no ``__init__``.
    """
    found: set[str] = set()
    classes = {q for q in defs if "." not in q and any(k.startswith(q + ".") for k in defs)} | {
        q for q in defs if "." not in q and q[:1].isupper()}
    if isinstance(owner, A.FunctionDecl) and owner.name in defs:
        found.add(owner.name)
    elif isinstance(owner, A.MethodDecl):
        for c in spec.classes:
            if owner in c.methods and f"{c.name}.{owner.name}" in defs:
                found.add(f"{c.name}.{owner.name}")
    elif isinstance(owner, A.ClassDecl):
        found.update(q for q in defs if q.startswith(owner.name + "."))
    if req.informal is None:
        calls: set[tuple[str, str]] = set()
        _called_names(req.clauses, calls)
        for kind, name in calls:
            if kind == "name" and name in classes:
                found.add(f"{name}.__init__" if f"{name}.__init__" in defs else name)
            elif kind == "name" and name in defs:
                found.add(name)
            elif kind == "attr":
                found.update(q for q in defs if q.endswith("." + name) or q == name)
    return tuple(sorted(found))
