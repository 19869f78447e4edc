"""Structural checks of a parsed spec that need no knowledge of the target (codes EG2xx).

All problems of a file are collected and raised together.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Iterator

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.check_database import same_rows_diagnostics
from evalgap.specs_lang.errors import Diagnostic, SpecNameError
from evalgap.specs_lang.diagnostics import (CLAUSE_OUTSIDE_FUNCTION, DECLARED_TWICE, DUPLICATE_ID, EMPTY_PROSE,
                                            DATABASE_CLAUSE, DATABASE_SCHEMA, EXPLORE_PLACEMENT, EXPLORE_UNKNOWN,
                                            INFORMAL_MIXED, MAY_RAISE_FORBIDDEN, MAY_RAISE_NOTHING_TO_NARROW,
                                            MISPLACED_CLAUSE, RESULT_OUTSIDE_POST,
                                            SCENARIO_NO_EXPECT, UNKNOWN_CATEGORY)

__all__ = ["check_structure", "check_spec", "structure_diagnostics", "iter_names"]


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
        out.append(Diagnostic(UNKNOWN_CATEGORY, inf.span, f"unknown informal category `{inf.category}`", hint))
    if any(not isinstance(c, A.Informal) for c in req.clauses):
        out.append(Diagnostic(INFORMAL_MIXED, req.span,
                              f"requirement {req.id} is marked informal but also has formal clauses",
                              "keep either the informal marker or the formal clauses"))


def _explore(req: A.Requirement, out: list[Diagnostic]) -> None:
    explores = [c for c in req.clauses if isinstance(c, A.Explore)]
    if not explores:
        return
    scenarios = [c for c in req.clauses if isinstance(c, A.Scenario)]
    if len(scenarios) != 1 or len(explores) > 1:
        out.append(Diagnostic(EXPLORE_PLACEMENT, explores[-1].span, f"requirement {req.id}: `explore` needs "
                              "exactly one scenario beside it, and is given once", "keep one `scenario` and one `explore`"))
    for e in explores:
        allowed = A.EXPLORE_KINDS.get(e.kind)
        if allowed is None:
            close = difflib.get_close_matches(e.kind, list(A.EXPLORE_KINDS), n=1)
            hint = f"did you mean `{close[0]}`?" if close else "one of: " + ", ".join(A.EXPLORE_KINDS)
            out.append(Diagnostic(EXPLORE_UNKNOWN, e.span, f"unknown explore kind `{e.kind}`", hint))
            continue
        for name, value in e.bounds:
            if name not in allowed:
                out.append(Diagnostic(EXPLORE_UNKNOWN, e.span, f"unknown bound `{name}` of `explore {e.kind}`",
                                      "one of: " + ", ".join(allowed)))
            elif value < (0 if name in ("delays", "pct") else 1):
                out.append(Diagnostic(EXPLORE_UNKNOWN, e.span, f"bound `{name} {value}` is out of range",
                                      "give a positive count (delays and pct may be 0)"))


def _database(db: A.DatabaseDecl, out: list[Diagnostic]) -> None:
    """The schema file of a ``database`` block must exist beside the spec (a spec read from text: not checked)."""
    if not db.span.file or db.span.file.startswith("<"):
        return
    path = Path(db.span.file).parent / db.schema_file
    if not path.is_file():
        out.append(Diagnostic(DATABASE_SCHEMA, db.span, f"database {db.name}: schema file {db.schema_file!r} not "
                              f"found (looked at {path})", "give the DDL's path relative to the spec file"))


def _placement(req: A.Requirement, owner: A.Owner, out: list[Diagnostic]) -> None:
    _explore(req, out)
    for clause in req.clauses:
        msg = None
        if isinstance(clause, A.Rule) and not isinstance(owner, A.ConfigDecl):
            msg = "a bare expression is a rule and belongs in a `config` requirement", \
                "state it as `ensures`, `requires` or `expect` inside a scenario"
        elif isinstance(clause, A.Invariant) and not isinstance(owner, A.ClassDecl):
            msg = "`invariant` belongs directly under a `class`", "move the requirement under `class NAME`"
        elif isinstance(clause, A.Raises) and not isinstance(owner, (A.FunctionDecl, A.MethodDecl)):
            msg = "`raises` needs an enclosing `function` or `method`", \
                "at the top level use a scenario with `expect raises EXC: CALL`"
        elif isinstance(clause, A.MayRaise):
            _may_raise(req, owner, clause, out)
        elif isinstance(owner, A.DatabaseDecl) and not isinstance(clause, (A.Rule, A.Let, A.Informal,
                                                                           A.SameRows)):
            out.append(Diagnostic(DATABASE_CLAUSE, clause.span, "a database requirement holds rules over `before` "
                                  "and `after` only", "write the condition over the tables' rows without a keyword "
                                  "(`len(after.users) == len(before.users)`)"))
        elif (isinstance(owner, A.ConfigDecl) and not isinstance(owner, A.DatabaseDecl)
              and not isinstance(clause, (A.Rule, A.Let, A.Informal))):
            msg = "a config requirement holds rules (bare boolean expressions) only", \
                "write the condition over the schema's fields without a keyword"
        if msg is not None:
            out.append(Diagnostic(MISPLACED_CLAUSE, clause.span, msg[0], msg[1]))


def _may_raise(req: A.Requirement, owner: A.Owner, clause: A.MayRaise, out: list[Diagnostic]) -> None:
    """EG218 outside a function or method, EG231 for a class that would let a target exit its way to a pass,
    EG232 when the requirement has no ``ensures`` for the allowed exceptions to excuse."""
    if not isinstance(owner, (A.FunctionDecl, A.MethodDecl)):
        out.append(Diagnostic(MISPLACED_CLAUSE, clause.span, "`may raise` needs an enclosing `function` or `method`",
                              "put the requirement under `function NAME(params)` or a class's `method`"))
        return
    for exc in clause.exceptions:
        if exc.split(".")[-1] in A.FORBIDDEN_MAY_RAISE:
            out.append(Diagnostic(MAY_RAISE_FORBIDDEN, clause.span, f"`may raise {exc}` in {req.id}: a target could "
                                  "end the check by raising it and be counted as passing",
                                  "list the subclasses of Exception the function may raise"))
    if not any(isinstance(c, A.Ensures) for c in req.clauses):
        out.append(Diagnostic(MAY_RAISE_NOTHING_TO_NARROW, clause.span, f"`may raise` in {req.id}, which has no "
                              "`ensures`: there is nothing for the allowed exceptions to excuse",
                              "add the `ensures` it excuses (`ensures True`: only that no other exception escapes)"))


def _duplicates(spec: A.Spec, out: list[Diagnostic]) -> None:
    seen: dict[str, A.Span] = {}
    decls: list[tuple[str, A.Span, str]] = (
        [(lt.name, lt.span, "let") for lt in spec.lets] + [(d.name, d.span, "def") for d in spec.defs]
        + [(r.name, r.span, "record") for r in spec.records] + [(c.name, c.span, "config") for c in (*spec.configs, *spec.databases)]
        + [(f.name, f.span, "function") for f in spec.functions] + [(c.name, c.span, "class") for c in spec.classes]
        + [(a.id, a.span, "assume") for a in spec.assumptions])
    for name, span, kind in decls:
        if name in seen:
            out.append(Diagnostic(DECLARED_TWICE, span, f"`{name}` is declared twice ({kind})",
                                  f"first declared at line {seen[name].line}"))
        else:
            seen[name] = span


def check_structure(spec: A.Spec, source: str | None = None) -> None:
    """Check the rules that need no target: unique IDs, categories, prose, where ``result`` may appear,
    scenarios with an ``expect``, clauses in the right place, declarations declared once.

    Args:
        spec: the parsed spec.
        source: its text, for excerpts in the error message.

    Raises:
        SpecNameError: with every problem found (EG201-EG210, EG218, EG221).
    """
    out = structure_diagnostics(spec)
    if out:
        raise SpecNameError(out, {spec.file: source} if source is not None else None)


def check_spec(spec: A.Spec, source: str | dict[str, str] | None = None, signatures: object = None) -> None:
    """All checks of a spec in one pass: structure, names and types (against the target's signatures when
    given, see :func:`evalgap.specs_lang.typecheck.check_names`).

    Args:
        spec: the parsed spec.
        source: its text (or file name -> text for a spec assembled from imports), for excerpts.
        signatures: a :class:`~evalgap.specs_lang.signatures.ModuleSig` or None.

    Raises:
        SpecNameError: with every problem found, sorted by file, line and column.
    """
    from evalgap.specs_lang.signatures import ModuleSig
    from evalgap.specs_lang.typecheck import check_names

    from evalgap.specs_lang.depth import depth_diagnostics
    from evalgap.specs_lang.lintrules import lint_diagnostics

    sigs = signatures if isinstance(signatures, ModuleSig) else None
    out = depth_diagnostics(spec)  # before the recursive passes: a too-deep tree would exhaust the stack
    out = out or (structure_diagnostics(spec) + lint_diagnostics(spec) + check_names(spec, sigs))
    uniq: dict[tuple[str, str, int, int], Diagnostic] = {}
    for d in out:
        uniq.setdefault((d.code, d.span.file, d.span.line, d.span.col), d)
    diags = sorted(uniq.values(), key=lambda d: (d.span.file, d.span.line, d.span.col))
    if diags:
        sources = source if isinstance(source, dict) else ({spec.file: source} if source is not None else None)
        raise SpecNameError(diags, sources)


def _has_expect(body: tuple[A.Stmt, ...]) -> bool:
    """Whether a scenario body holds an ``expect`` (also inside ``for`` and ``if`` blocks)."""
    return any(isinstance(s, (A.Expect, A.ExpectRaises))
               or (isinstance(s, A.For) and _has_expect(s.body))
               or (isinstance(s, A.If) and (_has_expect(s.body) or _has_expect(s.orelse))) for s in body)


def structure_diagnostics(spec: A.Spec) -> list[Diagnostic]:
    """The diagnostics of :func:`check_structure`, without raising (sorted by position)."""
    out: list[Diagnostic] = []
    _duplicates(spec, out)
    for db in spec.databases:
        _database(db, out)
    seen: dict[str, A.Requirement] = {}
    for req, owner in spec.all_requirements():
        if req.id in seen:
            first = seen[req.id].span
            out.append(Diagnostic(DUPLICATE_ID, req.span, f"duplicate requirement ID {req.id}",
                                  f"first defined at line {first.line}; IDs must be unique in a spec"))
        else:
            seen[req.id] = req
        if not req.prose.strip():
            out.append(Diagnostic(EMPTY_PROSE, req.span, f"requirement {req.id} has empty prose",
                                  "state the requirement in words; the prose is what the report traces"))
        _informal_checks(req, out)
        _placement(req, owner, out)
        same_rows_diagnostics(req, owner, out)
        for clause in req.clauses:
            if isinstance(clause, (A.Requires, A.Ensures)) and not isinstance(owner, (A.FunctionDecl,
                                                                                      A.MethodDecl,
                                                                                      A.ConfigDecl)):
                kw = "requires" if isinstance(clause, A.Requires) else "ensures"
                out.append(Diagnostic(CLAUSE_OUTSIDE_FUNCTION, clause.span,
                                      f"`{kw}` needs an enclosing `function` or `method` block",
                                      "put the requirement under `function NAME(params) -> type`, or use a "
                                      "scenario"))
            if isinstance(clause, A.Requires) and not (isinstance(owner, (A.FunctionDecl, A.MethodDecl))
                                                       and any(p.name == "result" for p in owner.params)):
                for n in iter_names(clause.expr):  # (a parameter named `result` is what a precondition reads)
                    if n.id == "result":
                        out.append(Diagnostic(RESULT_OUTSIDE_POST, n.span, "`result` in a precondition",
                                              "the result exists only after the call: use `ensures`"))
            if isinstance(clause, A.Scenario) and not _has_expect(clause.body):
                out.append(Diagnostic(SCENARIO_NO_EXPECT, clause.span, f"scenario of {req.id} has no `expect`",
                                      "end it with `expect EXPR` or `expect raises EXC: CALL`"))
    from evalgap.specs_lang.check_model import model_diagnostics

    out += model_diagnostics(spec)
    out.sort(key=lambda d: (d.span.file, d.span.line, d.span.col))
    return out
