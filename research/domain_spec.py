"""The benchmark's input domain as assumptions of a differential spec (``crosshair-domain``).

:mod:`evalgap.research.domains` reads a task's domain off its visible inputs and classifies each counterexample
afterwards: one outside the domain (non-ASCII text, an integer six orders of magnitude beyond the visible ones)
does not count for recall. A search that is free to leave the domain may stop at such a counterexample and
never look inside, where the program is wrong too. This module states the same rule, unchanged, as ``assume``
clauses of the differential spec, so the search stays inside the domain and every refutation it finds counts:

* text: when every visible string is ASCII, each string in a parameter is ASCII (``s.isascii()``);
* integers: with ``d`` digits in the largest visible integer magnitude, each integer in a parameter is below
  ``10 ** (d + 6)`` in magnitude.

Floats are bounded by :func:`evalgap.research.diffspec.finite_condition` already. Every verdict lists these
assumptions, as it lists the float ones.
"""

from __future__ import annotations

import ast

from evalgap.research.dataset import Task
from evalgap.research.diffspec import _DICTS, _LISTS as _DIFF_LISTS, _member_class
from evalgap.research.domains import InputDomain, infer_domain

__all__ = ["domain_assumptions"]

_LISTS = _DIFF_LISTS | {"set", "Set", "frozenset", "FrozenSet"}


def _cond(var: str, node: ast.expr, depth: int, dom: InputDomain) -> str | None:
    if isinstance(node, ast.Name):
        if node.id == "str" and dom.ascii_text:
            return f"{var}.isascii()"
        if node.id == "int" and dom.int_digits is not None:
            return f"abs({var}) < {10 ** (dom.int_digits + 6)}"
        return None
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        return None
    base = node.value.id
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    v = f"v{depth}"
    if base in _LISTS and len(args) == 1:
        inner = _cond(v, args[0], depth + 1, dom)
        return f"forall {v} in {var}: {inner}" if inner else None
    if base in _DICTS and len(args) == 2:
        keys, values = _cond(v, args[0], depth + 1, dom), _cond(v, args[1], depth + 1, dom)
        parts = ([f"(forall {v} in {var}: {keys})"] if keys else []) + \
            ([f"(forall {v} in {var}.values(): {values})"] if values else [])
        return " and ".join(parts) if parts else None
    if base in ("Union", "Optional"):
        conds = [f"(not isinstance({var}, {_member_class(a)}) or ({c}))" for a in args
                 if (c := _cond(var, a, depth, dom))]
        return " and ".join(conds) if conds else None
    if base in ("tuple", "Tuple") and not any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in args):
        conds = [f"({c})" for i, a in enumerate(args) if (c := _cond(f"{var}[{i}]", a, depth, dom))]
        return " and ".join(conds) if conds else None
    return None


def domain_assumptions(task: Task, names: list[str]) -> str:
    """``assume DOMAIN_<param> "...": <condition>`` lines (spec text, two-space indented, one per parameter
    whose type holds text or integers the rule bounds) for ``task``'s differential spec, whose parameters are
    ``names`` (in the order of ``task.param_types``); empty when the visible inputs bound nothing.

    The domain comes from the task's visible (base) inputs only, never the oracle's (the rule of
    :mod:`evalgap.research.domains`, fixed before any evaluation run).
    """
    dom = infer_domain(task.visible_inputs())
    out = []
    for n, (_, t) in zip(names, task.param_types):
        try:
            node = ast.parse(t, mode="eval").body
        except SyntaxError:
            continue
        cond = _cond(n, node, 0, dom)
        if cond:
            what = (["ASCII text"] if ".isascii()" in cond else []) + \
                ([f"integers below 10**{(dom.int_digits or 0) + 6} in magnitude"] if "abs(" in cond else [])
            out.append(f'  assume DOMAIN_{n} "The benchmark\'s domain, read off its visible inputs '
                       f'({", ".join(what)}), in {n}.": {cond}\n')
    return "".join(out)
