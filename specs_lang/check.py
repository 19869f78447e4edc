"""Structural checks of a parsed spec that need no knowledge of the target (codes EG2xx).

All problems of a file are collected and raised together.
"""

from __future__ import annotations

import difflib
from typing import Iterator

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.errors import Diagnostic, SpecNameError

__all__ = ["check_structure", "iter_names"]


def iter_names(node: object) -> Iterator[A.Name]:
    """Yield every :class:`Name` node inside an expression, statement or clause (pre-order)."""
    if isinstance(node, A.Name):
        yield node
        return
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from iter_names(item)
        return
    fields = getattr(node, "__dataclass_fields__", None)
    if not fields:
        return
    for name in fields:
        if name == "span":
            continue
        yield from iter_names(getattr(node, name))


def _informal_checks(req: A.Requirement, out: list[Diagnostic]) -> None:
    inf = req.informal
    if inf is None:
        return
    if inf.category not in A.INFORMAL_CATEGORIES:
        close = difflib.get_close_matches(inf.category, A.INFORMAL_CATEGORIES, n=1)
        hint = f"did you mean `{close[0]}`?" if close else "one of: " + ", ".join(A.INFORMAL_CATEGORIES)
        out.append(Diagnostic("EG202", inf.span, f"unknown informal category `{inf.category}`", hint))
    if len(req.clauses) > 1:
        out.append(Diagnostic("EG205", req.span,
                              f"requirement {req.id} is marked informal but also has formal clauses",
                              "keep either the informal marker or the formal clauses"))


def check_structure(spec: A.Spec, source: str | None = None) -> None:
    """Check the rules that need no target: unique IDs, categories, prose, where ``result`` may appear,
    scenarios with an ``expect``, function clauses inside a function.

    Args:
        spec: the parsed spec.
        source: its text, for excerpts in the error message.

    Raises:
        SpecNameError: with every problem found (EG201-EG210).
    """
    out: list[Diagnostic] = []
    seen: dict[str, A.Requirement] = {}
    for req, owner in spec.all_requirements():
        if req.id in seen:
            first = seen[req.id].span
            out.append(Diagnostic("EG201", req.span, f"duplicate requirement ID {req.id}",
                                  f"first defined at line {first.line}; IDs must be unique in a spec"))
        else:
            seen[req.id] = req
        if not req.prose.strip():
            out.append(Diagnostic("EG203", req.span, f"requirement {req.id} has empty prose",
                                  "state the requirement in words; the prose is what the report traces"))
        _informal_checks(req, out)
        for clause in req.clauses:
            if isinstance(clause, (A.Requires, A.Ensures)) and not isinstance(owner, (A.FunctionDecl,
                                                                                      A.MethodDecl)):
                kw = "requires" if isinstance(clause, A.Requires) else "ensures"
                out.append(Diagnostic("EG210", clause.span,
                                      f"`{kw}` needs an enclosing `function` or `method` block",
                                      "put the requirement under `function NAME(params) -> type`, or use a "
                                      "scenario"))
            if isinstance(clause, A.Requires):
                for n in iter_names(clause.expr):
                    if n.id == "result":
                        out.append(Diagnostic("EG204", n.span, "`result` in a precondition",
                                              "the result exists only after the call: use `ensures`"))
            if isinstance(clause, A.Scenario) and not any(isinstance(s, (A.Expect, A.ExpectRaises))
                                                          for s in clause.body):
                out.append(Diagnostic("EG209", clause.span, f"scenario of {req.id} has no `expect`",
                                      "end it with `expect EXPR` or `expect raises EXC: CALL`"))
    if out:
        out.sort(key=lambda d: (d.span.line, d.span.col))
        raise SpecNameError(out, {spec.file: source} if source is not None else None)
