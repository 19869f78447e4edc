"""Parameters named like the names icontract reserves in postconditions (``result``, ``OLD``).

icontract passes a postcondition the return value as ``result`` and the snapshots as ``OLD``, and refuses a
decorated function with a parameter of either name ("Unexpected argument 'result' in a function decorated with
postconditions"); the harness's check functions are such functions. A target function may still have a
parameter named ``result`` (the spec must declare it under the target's name, EG212), so before translation
the parameter is renamed (``result`` -> ``result_``, a name that appears nowhere in the spec, so it can shadow
no name of the target the spec reads) in its declaration and wherever the spec reads
the parameter: preconditions, ``raises ... when`` conditions and, in postconditions, inside ``old(...)``. A
bare ``result`` in an ``ensures`` stays the return value, as docs/language.md defines it. The target is called
by position, so the renaming does not change what is called.
"""

from __future__ import annotations

from dataclasses import fields, replace
from collections.abc import Iterable
from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.lower import substitute

__all__ = ["RESERVED", "renaming", "spec_names", "rename_reserved_params"]

#: The names icontract gives a postcondition's extra arguments.
RESERVED = ("result", "OLD")


def _only_in_old(node: Any, mapping: dict[str, A.Expr]) -> Any:
    """``node`` with ``mapping`` substituted inside each ``old(...)`` only."""
    if isinstance(node, A.Old):
        return replace(node, expr=substitute(node.expr, mapping))
    if isinstance(node, tuple):
        return tuple(_only_in_old(n, mapping) for n in node)
    if node is None or isinstance(node, (A.Span, A.TypeRef, A.Range, A.Alphabet, str, int, float, bytes, bool)):
        return node
    if not hasattr(node, "__dataclass_fields__"):
        return node
    return replace(node, **{f.name: _only_in_old(getattr(node, f.name), mapping) for f in fields(node)
                            if f.name != "span"})


def _clause(c: A.Clause, mapping: dict[str, A.Expr]) -> A.Clause:
    if isinstance(c, A.Ensures) and "result" in mapping:
        rest = {k: v for k, v in mapping.items() if k != "result"}
        c = substitute(c, rest) if rest else c
        return _only_in_old(c, {"result": mapping["result"]})  # type: ignore[no-any-return]
    return substitute(c, mapping)  # type: ignore[no-any-return]


def spec_names(spec: A.Spec) -> frozenset[str]:
    """Every name that appears anywhere in ``spec`` (parameters, clauses, helpers, assumptions, lets): a renamed
    parameter must take none of them, or it would shadow a name of the target the spec reads (a target constant
    ``result_``). Computed once per spec object."""
    held = _NAMES.get(id(spec))
    if held is not None and held[0] is spec:
        return held[1]
    found: set[str] = set()
    stack: list[Any] = [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, A.Name):
            found.add(node.id)
        elif isinstance(node, A.Param):
            found.add(node.name)
        if isinstance(node, (tuple, list)):
            stack.extend(node)
        elif hasattr(node, "__dataclass_fields__") and not isinstance(node, (A.Span, A.TypeRef)):
            stack.extend(getattr(node, f.name) for f in fields(node) if f.name != "span")
    names = frozenset(found)
    if len(_NAMES) > 16:
        _NAMES.clear()
    _NAMES[id(spec)] = (spec, names)
    return names


_NAMES: dict[int, tuple[A.Spec, frozenset[str]]] = {}


def renaming(param_names: Iterable[str], taken: Iterable[str] = ()) -> dict[str, str]:
    """The new name of each reserved name among ``param_names`` (``result`` -> ``result_``, with more
    underscores while another parameter or a name in ``taken`` (:func:`spec_names`) has it); empty when none
    is reserved."""
    params = set(param_names)
    names = params | set(taken)
    out: dict[str, str] = {}
    for n in RESERVED:
        if n in params:
            new = n + "_"
            while new in names:
                new += "_"
            out[n] = new
    return out


def _decl(decl: Any, taken: frozenset[str]) -> Any:
    renamed = renaming((p.name for p in decl.params), taken)
    if not renamed:
        return decl
    mapping: dict[str, A.Expr] = {old: A.Name(new) for old, new in renamed.items()}
    params = tuple(replace(p, name=renamed[p.name]) if p.name in renamed else p for p in decl.params)
    reqs = tuple(replace(r, clauses=tuple(_clause(c, mapping) for c in r.clauses)) for r in decl.requirements)
    return replace(decl, params=params, requirements=reqs)


def rename_reserved_params(spec: A.Spec) -> A.Spec:
    """``spec`` with every function or method parameter named ``result`` or ``OLD`` renamed (see the module
    docstring); the same object when there is none.

    Args:
        spec: a parsed, structurally checked spec.

    Returns:
        The spec to translate into a harness.
    """
    taken = spec_names(spec)
    funcs = tuple(_decl(f, taken) for f in spec.functions)
    classes = tuple(replace(c, methods=tuple(_decl(m, taken) for m in c.methods)) for c in spec.classes)
    if all(a is b for a, b in zip(funcs, spec.functions)) and all(
            a is b for c, d in zip(classes, spec.classes) for a, b in zip(c.methods, d.methods)):
        return spec
    return replace(spec, functions=funcs, classes=classes)
