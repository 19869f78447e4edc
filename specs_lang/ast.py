"""The typed abstract syntax tree of a ``.req`` spec.

All nodes are frozen dataclasses; every node carries a :class:`Span` (file, 1-based line and column,
end exclusive). Expressions are a Python subset plus ``==>`` (:class:`Implies`), ``<==>`` (:class:`Iff`)
and ``forall`` / ``exists`` (:class:`Quantifier`). ``result`` is an ordinary :class:`Name`; the checker
gives it its meaning.

Equality of nodes ignores spans (``Span`` compares equal to every other span), so that
``parse(format(ast)) == ast`` can be stated directly.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Union

__all__ = [
    "Span", "Expr", "Name", "Const", "BinOp", "UnaryOp", "BoolOp", "Not", "Compare", "Implies", "Iff",
    "IfExp", "Call", "Keyword", "Attribute", "Subscript", "Slice", "ListExpr", "TupleExpr", "SetExpr",
    "DictExpr", "Comprehension", "Quantifier", "Old", "TypeRef", "Range", "Alphabet", "ALPHABETS", "Param",
    "Stmt", "Assign", "ExprStmt", "Expect", "ExpectRaises", "For", "If", "Clause", "Requires", "Ensures", "Invariant",
    "Example", "Informal", "Scenario", "Raises", "MayRaise", "Let", "Rule", "Model", "ModelOp", "SameRows",
    "SameCall",
    "Requirement", "FunctionDecl", "ClassDecl",
    "MethodDecl", "Explore", "EXPLORE_KINDS", "Assume", "FuncDef", "RecordDecl", "ConfigDecl", "DatabaseDecl",
    "StubOutcome", "StubDecl", "Spec",
    "INFORMAL_CATEGORIES", "FORBIDDEN_MAY_RAISE", "NOSPAN", "DEFAULT_MODEL_CALLS", "DEFAULT_INVARIANT_CALLS", "MAX_SEQUENCE_CALLS",
]

#: The categories an ``informal`` requirement may name (the reason it is not formalized).
INFORMAL_CATEGORIES: tuple[str, ...] = (
    "omission", "exclusion", "trade-off", "conflict", "environment", "vague", "unobservable",
)


from evalgap.specs_lang.ast_expr import (NOSPAN, Attribute, BinOp, BoolOp, Call, Compare, Comprehension, Const,
                                        DictExpr, Expr, IfExp, Iff, Implies, Keyword, ListExpr, Name, Not, Old,
                                        Quantifier, SetExpr, Slice, Span, Subscript, TupleExpr, UnaryOp, _span)
from evalgap.specs_lang.ast_db import SameCall, SameRows
from evalgap.specs_lang.ast_stmt import Assign, Expect, ExpectRaises, ExprStmt, For, If, Stmt


# ------------------------------------------------------------------ types and parameters
#: Named string alphabets (``s: str digits``) and the characters each allows.
ALPHABETS: dict[str, str] = {
    "ascii": "".join(chr(i) for i in range(128)),
    "printable": string.printable,
    "digits": string.digits,
    "letters": string.ascii_letters,
    "alnum": string.digits + string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "hexdigits": string.hexdigits,
}


@dataclass(frozen=True)
class Range:
    """An inclusive numeric range ``lo..hi`` (``n: int in 0..1000``, ``xs: list[int] len 1..50``)."""

    lo: int | float
    hi: int | float
    span: Span = _span()


@dataclass(frozen=True)
class Alphabet:
    """The characters a ``str`` may contain: a named alphabet (``ascii``, ``printable``, ``digits``,
    ``letters``, ``alnum``, ``lowercase``, ``uppercase``, ``hexdigits``; see :data:`ALPHABETS`) or a
    character set ``chars "abc"`` (``name`` is ``"chars"``). ``chars`` always holds the allowed characters.
    """

    name: str
    chars: str
    span: Span = _span()


@dataclass(frozen=True)
class TypeRef:
    """A parameter or result type: ``int``, ``list[int]``, ``dict[str, bytes]``, ``mod.Class``, with optional
    narrowings: ``range`` (``int in 0..1000``: the value), ``length`` (``list[int] len 1..50``: ``len()`` of
    the value) and ``alphabet`` (``str digits``). Narrowings become constructive bounds for Hypothesis,
    preconditions for CrossHair, and are listed in the report as assumptions of the verdict.

    ``str(t)`` is the plain Python annotation (no narrowings). The argument list of ``Callable[[int, str],
    bool]`` is a ``TypeRef`` named ``"[]"`` whose ``args`` are the parameter types.
    """

    name: str
    args: tuple[TypeRef, ...] = ()
    span: Span = _span()
    range: Range | None = None
    length: Range | None = None
    alphabet: Alphabet | None = None

    def __str__(self) -> str:
        if self.name == "[]":  # the argument list of Callable[[int, str], bool]
            return f"[{', '.join(str(a) for a in self.args)}]"
        if not self.args:
            return self.name
        return f"{self.name}[{', '.join(str(a) for a in self.args)}]"

    @property
    def narrowed(self) -> bool:
        """True when this type or one of its arguments carries a range, length or alphabet."""
        return (self.range is not None or self.length is not None or self.alphabet is not None
                or any(a.narrowed for a in self.args))


@dataclass(frozen=True)
class Param:
    """``name: type``."""

    name: str
    type: TypeRef
    span: Span = _span()


# ------------------------------------------------------------------ clauses
@dataclass(frozen=True)
class Requires:
    """``requires EXPR``: a precondition of the enclosing function."""

    expr: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Ensures:
    """``ensures EXPR``: a postcondition; ``result`` names the return value."""

    expr: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Invariant:
    """``invariant EXPR [up to N calls]``: a class invariant over ``self``, checked after construction and
    after each of up to ``max_calls`` method calls (None: :data:`DEFAULT_INVARIANT_CALLS`)."""

    expr: Expr
    span: Span = _span()
    max_calls: int | None = None


@dataclass(frozen=True)
class Example:
    """``example EXPR``: a concrete, closed check such as ``f(1, 2) == 3`` (a test, not a property)."""

    expr: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Informal:
    """``informal CATEGORY "reason"``: why the requirement is not formalized."""

    category: str
    reason: str
    span: Span = _span()


@dataclass(frozen=True)
class Scenario:
    """``scenario (params): stmts``: a sequence of calls, universally quantified over ``params``."""

    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Raises:
    """``raises EXC when EXPR``: exceptional behaviour. When ``when`` holds on the arguments before the
    call, the call must raise ``exception`` (or a subclass); ``old()`` and ``result`` are not allowed."""

    exception: str
    when: Expr
    span: Span = _span()


@dataclass(frozen=True)
class MayRaise:
    """``may raise EXC, ...``: the listed exception classes (dotted names; a subclass counts) may escape the
    call without refuting the requirement's other clauses (JML's ``signals``, deal's ``@deal.raises``); any
    other exception escaping still refutes it. Only around the call of the target: an exception raised while a
    clause is evaluated is never allowed by it."""

    exceptions: tuple[str, ...]
    span: Span = _span()


#: Exception classes a ``may raise`` must not list (EG231): allowing them would let a target end the check
#: (or the process) by raising them and be counted as having passed.
FORBIDDEN_MAY_RAISE = ("BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit")


@dataclass(frozen=True)
class Let:
    """``let NAME = EXPR``: a named expression. At the top level of a spec (or a config) it is visible in
    every requirement; as a clause it is visible in the clauses after it in the same requirement."""

    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Rule:
    """A bare boolean expression as a clause: a rule over a ``config``'s fields (only inside ``config``)."""

    expr: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Explore:
    """``explore KIND [NAME INT]...``: the scenario of this requirement is explored beyond its inputs by the
    engine ``KIND`` (``schedules``: every event-loop interleaving, docs/concurrency.md), within the bounds
    given (``delays 2 runs 500``; the rest default)."""

    kind: str
    bounds: tuple[tuple[str, int], ...] = ()
    span: Span = _span()


#: ``explore`` kinds and the bounds each accepts.
EXPLORE_KINDS: dict[str, tuple[str, ...]] = {
    "schedules": ("inputs", "runs", "delays", "points", "pct", "bug_depth", "steps"),
}



#: Call-sequence bounds of stateful requirements (``up to N calls``): the default of a ``model`` block, of an
#: ``invariant``, and the largest bound the checker accepts (EG227).
DEFAULT_MODEL_CALLS = 4
DEFAULT_INVARIANT_CALLS = 3
MAX_SEQUENCE_CALLS = 8


@dataclass(frozen=True)
class ModelOp:
    """One operation of a ``model`` block: ``NAME(params)`` (call the model's method of the same name) or
    ``NAME(params): ACTION`` where ``kind`` says what ``ACTION`` is: ``expr`` (its value is the model's
    result), ``assign`` (``target = value``, the result is None) or ``delete`` (``del target``). ``NAME`` is a
    declared method of the class; ``params`` name its arguments, in order."""

    name: str
    params: tuple[str, ...]
    kind: str = "call"
    value: Expr | None = None
    target: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True)
class Model:
    """``model REF [up to N calls]`` with optional operations: a model-based requirement on a class. ``ref``
    is a dotted name of a reference class (the target module's, or ``module.Class`` from the target's folder)
    or a dict/list expression (a fresh value per sequence, bound to ``model`` in the operations). Every
    sequence of up to ``max_calls`` (None: :data:`DEFAULT_MODEL_CALLS`) calls of ``ops`` (all declared methods
    when empty) must give the same results and exceptions on the implementation and on the model."""

    ref: Expr
    ops: tuple[ModelOp, ...] = ()
    max_calls: int | None = None
    span: Span = _span()


Clause = Union[Requires, Ensures, Invariant, Example, Informal, Scenario, Raises, MayRaise, Let, Rule, Explore,
               Model, SameRows]


# ------------------------------------------------------------------ declarations
@dataclass(frozen=True)
class Requirement:
    """``requirement ID "prose"`` with its clauses. ``id`` is unique within a spec."""

    id: str
    prose: str
    clauses: tuple[Clause, ...]
    span: Span = _span()

    @property
    def informal(self) -> Informal | None:
        """The ``informal`` clause, if any."""
        for c in self.clauses:
            if isinstance(c, Informal):
                return c
        return None


@dataclass(frozen=True)
class FunctionDecl:
    """``function NAME(params) -> type`` with the requirements on that function of the target."""

    name: str
    params: tuple[Param, ...]
    returns: TypeRef | None
    requirements: tuple[Requirement, ...]
    span: Span = _span()


@dataclass(frozen=True)
class MethodDecl:
    """``method NAME(params) -> type`` inside a class (``self`` is implicit)."""

    name: str
    params: tuple[Param, ...]
    returns: TypeRef | None
    requirements: tuple[Requirement, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ClassDecl:
    """``class NAME`` with methods and class-level requirements (invariants)."""

    name: str
    methods: tuple[MethodDecl, ...]
    requirements: tuple[Requirement, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Assume:
    """``assume ID "prose": EXPR``: an environment assumption. It is used as a precondition of every
    function, method, scenario and config whose parameters bind all its free names, and is listed in the
    report as an assumption of the verdicts."""

    id: str
    prose: str
    expr: Expr
    span: Span = _span()


@dataclass(frozen=True)
class FuncDef:
    """``def NAME(params) -> type: EXPR``: a pure helper function of the spec (recursion allowed)."""

    name: str
    params: tuple[Param, ...]
    returns: TypeRef
    body: Expr
    span: Span = _span()


@dataclass(frozen=True)
class RecordDecl:
    """``record NAME: field: type, ...``: a record type (fields read with ``r.field``)."""

    name: str
    fields: tuple[Param, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ConfigDecl:
    """``config NAME "title" schema: field: type, ...`` with requirements whose clauses are :class:`Rule`
    expressions over the schema's fields (and ``lets``, visible in every rule of the config)."""

    name: str
    title: str
    schema: tuple[Param, ...]
    requirements: tuple[Requirement, ...]
    lets: tuple[Let, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class DatabaseDecl(ConfigDecl):
    """``database NAME "title" schema: "FILE.sql"``: requirements whose :class:`Rule` clauses range over
    ``before`` and ``after``, the tables (``before.users``: a list of rows, ``r.name``: a column) before and
    after the target's ``migrate(conn)`` runs on a real database created from ``schema_file`` (the DDL,
    relative to the spec file). A config by shape (rules, lets), checked by the ``database`` engine."""

    schema_file: str = ""


@dataclass(frozen=True)
class StubOutcome:
    """One outcome a :class:`StubDecl` may produce: ``kind`` is ``any`` (any value of the return type),
    ``value`` (``value`` holds the expression) or ``raises`` (``exception`` holds the dotted name)."""

    kind: str
    value: Expr | None = None
    exception: str | None = None
    span: Span = _span()


@dataclass(frozen=True)
class StubDecl:
    """``stub DEP(params) -> type: any`` or ``: one of (VALUE, raises EXC, any, ...)``: inside scenarios the
    dependency ``name`` (dotted, looked up in the target module) is replaced by a symbolic function that
    returns, at each call, any of the listed outcomes (``any`` alone: any value of ``returns``)."""

    name: str
    params: tuple[Param, ...]
    returns: TypeRef | None
    outcomes: tuple[StubOutcome, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Spec:
    """A whole ``.req`` file.

    Attributes:
        name, title: from ``spec NAME "title"`` (name defaults to the file stem).
        target: the ``target:`` text, or None; a path is relative to the spec file's folder.
        imports: paths of other ``.req`` files.
        requirements: top-level requirements (scenarios, examples, informal ones).
        functions, classes: declarations with their requirements.
        assumptions: ``assume`` declarations.
        lets, defs: top-level helpers (``let``, ``def``).
        records, configs, stubs: ``record``, ``config`` and ``stub`` declarations.
        databases: ``database`` blocks (not among ``configs``: no configuration file is checked against them).
        file: the path the spec was read from.
    """

    name: str
    title: str
    target: str | None
    imports: tuple[str, ...]
    requirements: tuple[Requirement, ...]
    functions: tuple[FunctionDecl, ...]
    classes: tuple[ClassDecl, ...]
    assumptions: tuple[Assume, ...] = ()
    lets: tuple[Let, ...] = ()
    defs: tuple[FuncDef, ...] = ()
    records: tuple[RecordDecl, ...] = ()
    configs: tuple[ConfigDecl, ...] = ()
    stubs: tuple[StubDecl, ...] = ()
    databases: tuple[DatabaseDecl, ...] = ()
    file: str = field(default="<spec>", compare=False)
    span: Span = _span()

    def all_requirements(self) -> list[tuple[Requirement, Owner]]:
        """Every requirement in source order, each with the declaration it belongs to (None: top level)."""
        out: list[tuple[Requirement, Owner]] = []
        out.extend((r, None) for r in self.requirements)
        for cf in (*self.configs, *self.databases):
            out.extend((r, cf) for r in cf.requirements)
        for f in self.functions:
            out.extend((r, f) for r in f.requirements)
        for c in self.classes:
            out.extend((r, c) for r in c.requirements)
            for m in c.methods:
                out.extend((r, m) for r in m.requirements)
        out.sort(key=lambda pair: (pair[0].span.file != self.file, pair[0].span.file, pair[0].span.line,
                                   pair[0].span.col))
        return out


#: The declaration a requirement belongs to (None: the top level of the spec).
Owner = Union[FunctionDecl, MethodDecl, ClassDecl, ConfigDecl, None]
