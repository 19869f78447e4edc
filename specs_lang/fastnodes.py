"""Fast constructors of the AST's frozen dataclasses, for the fast parser.

A frozen dataclass's ``__init__`` sets each field with ``object.__setattr__`` (to get past the frozen
``__setattr__``); for the half million nodes and spans of 10,000 requirements that is the largest single
cost of building the AST. Each constructor here (same name as the class, every field positional, in field
order, no defaults) makes the instance with ``object.__new__`` and fills its ``__dict__`` directly: the
object is the same as the one ``__init__`` builds (``tests/test_fastparse.py`` checks every class). A class
with ``__slots__``, a ``__post_init__`` or a field outside ``__init__`` gets its plain constructor instead.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, TypeVar

from evalgap.specs_lang import ast as A

__all__ = ["maker", "Span", "Name", "Const", "BinOp", "UnaryOp", "BoolOp", "Not", "Compare", "Implies", "Iff",
           "IfExp", "Call", "Keyword", "Attribute", "Subscript", "Slice", "ListExpr", "TupleExpr", "SetExpr",
           "DictExpr", "Comprehension", "Quantifier", "Old", "TypeRef", "Range", "Alphabet", "Param", "Assign",
           "ExprStmt", "Expect", "ExpectRaises", "Requires", "Ensures", "Invariant", "Example", "Informal",
           "Scenario", "Raises", "Let", "Rule", "Requirement", "FunctionDecl", "MethodDecl", "ClassDecl",
           "Assume", "FuncDef", "RecordDecl", "ConfigDecl", "StubOutcome", "StubDecl"]

T = TypeVar("T")


def maker(cls: type[T]) -> Callable[..., T]:
    """A constructor of ``cls`` taking every field positionally and filling ``__dict__`` directly.

    Args:
        cls: a dataclass of :mod:`evalgap.specs_lang.ast`.

    Returns:
        A function ``(field1, field2, ...) -> cls instance``; ``cls`` itself when the shortcut would not give
        the same object (``__slots__``, ``__post_init__``, or a field not set by ``__init__``).
    """
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if "__slots__" in vars(cls) or hasattr(cls, "__post_init__") or not all(f.init for f in fields):
        return cls
    names = [f.name for f in fields]
    body = "".join(f"    d[{n!r}] = {n}\n" for n in names)
    src = f"def make({', '.join(names)}):\n    o = new(cls)\n    d = o.__dict__\n{body}    return o\n"
    scope: dict[str, Any] = {}
    exec(src, {"new": object.__new__, "cls": cls}, scope)  # noqa: S102 - generated from field names only
    make: Callable[..., T] = scope["make"]
    make.__doc__ = f"Build a {cls.__name__} from its fields ({', '.join(names)}), positionally."
    return make


Span = maker(A.Span)
Name = maker(A.Name)
Const = maker(A.Const)
BinOp = maker(A.BinOp)
UnaryOp = maker(A.UnaryOp)
BoolOp = maker(A.BoolOp)
Not = maker(A.Not)
Compare = maker(A.Compare)
Implies = maker(A.Implies)
Iff = maker(A.Iff)
IfExp = maker(A.IfExp)
Call = maker(A.Call)
Keyword = maker(A.Keyword)
Attribute = maker(A.Attribute)
Subscript = maker(A.Subscript)
Slice = maker(A.Slice)
ListExpr = maker(A.ListExpr)
TupleExpr = maker(A.TupleExpr)
SetExpr = maker(A.SetExpr)
DictExpr = maker(A.DictExpr)
Comprehension = maker(A.Comprehension)
Quantifier = maker(A.Quantifier)
Old = maker(A.Old)
TypeRef = maker(A.TypeRef)
Range = maker(A.Range)
Alphabet = maker(A.Alphabet)
Param = maker(A.Param)
Assign = maker(A.Assign)
ExprStmt = maker(A.ExprStmt)
Expect = maker(A.Expect)
ExpectRaises = maker(A.ExpectRaises)
Requires = maker(A.Requires)
Ensures = maker(A.Ensures)
Invariant = maker(A.Invariant)
Example = maker(A.Example)
Informal = maker(A.Informal)
Scenario = maker(A.Scenario)
Raises = maker(A.Raises)
Let = maker(A.Let)
Rule = maker(A.Rule)
Requirement = maker(A.Requirement)
FunctionDecl = maker(A.FunctionDecl)
MethodDecl = maker(A.MethodDecl)
ClassDecl = maker(A.ClassDecl)
Assume = maker(A.Assume)
FuncDef = maker(A.FuncDef)
RecordDecl = maker(A.RecordDecl)
ConfigDecl = maker(A.ConfigDecl)
StubOutcome = maker(A.StubOutcome)
StubDecl = maker(A.StubDecl)
