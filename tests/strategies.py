"""Hypothesis strategies for spec ASTs that the parser can produce (shared by the tests).

``specs()`` draws whole :class:`~evalgap.specs_lang.ast.Spec` values; ``exprs()`` draws expressions. Every
value drawn is one the grammar can express, so ``parse(format_spec(s)) == s`` must hold for all of them.
Names come from a small pool free of keywords (and without ``old``, which the builder turns into
:class:`~evalgap.specs_lang.ast.Old`).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from evalgap.specs_lang import ast as A

NAMES = ["a", "b", "c", "xs", "ys", "n", "m", "key", "value", "total", "f", "g", "s", "t_1", "Store"]
names = st.sampled_from(NAMES)
dotted = st.lists(names, min_size=1, max_size=3).map(".".join)
req_ids = st.builds(lambda head, nums: head + "".join(f"-{k}" for k in nums),
                    st.sampled_from(["KV", "R", "HE35", "A_b", "x"]), st.lists(st.integers(0, 99), max_size=2))
texts = st.text(max_size=12)
ints = st.integers(min_value=0, max_value=10**12)
floats = st.floats(min_value=0, allow_nan=False, allow_infinity=False)
BIN_OPS = ["+", "-", "*", "/", "//", "%", "**"]
CMP_OPS = ["<", ">", "==", ">=", "<=", "!=", "in", "not in", "is", "is not"]

consts = st.one_of(ints.map(A.Const), floats.map(A.Const), texts.map(A.Const), st.binary(max_size=6).map(A.Const),
                   st.sampled_from([True, False, None]).map(A.Const))
leaves = st.one_of(names.map(A.Name), consts)


def _compound(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    small = st.lists(children, max_size=3).map(tuple)
    some = st.lists(children, min_size=1, max_size=3).map(tuple)
    targets = st.lists(names, min_size=1, max_size=2, unique=True).map(tuple)
    opt = st.none() | children
    keywords = st.lists(st.tuples(names, children), max_size=2, unique_by=lambda kv: kv[0]).map(
        lambda kvs: tuple(A.Keyword(k, v) for k, v in kvs))
    return st.one_of(
        st.builds(A.BinOp, st.sampled_from(BIN_OPS), children, children),
        st.builds(A.UnaryOp, st.sampled_from(["+", "-"]), children),
        st.builds(A.BoolOp, st.sampled_from(["and", "or"]), st.lists(children, min_size=2, max_size=3).map(tuple)),
        st.builds(A.Not, children),
        st.integers(1, 3).flatmap(lambda k: st.builds(
            A.Compare, children, st.lists(st.sampled_from(CMP_OPS), min_size=k, max_size=k).map(tuple),
            st.lists(children, min_size=k, max_size=k).map(tuple))),
        st.builds(A.Implies, children, children),
        st.builds(A.Iff, children, children),
        st.builds(A.IfExp, children, children, children),
        st.builds(A.Call, st.one_of(names.map(A.Name), st.builds(A.Attribute, names.map(A.Name), names)), small,
                  keywords),
        st.builds(A.Attribute, children, names),
        st.builds(A.Subscript, children, children | st.builds(A.Slice, opt, opt, opt)),
        st.builds(A.ListExpr, small),
        st.builds(A.TupleExpr, small),
        st.builds(A.SetExpr, some),
        st.lists(st.tuples(children, children), max_size=2).map(
            lambda kv: A.DictExpr(tuple(k for k, _ in kv), tuple(v for _, v in kv))),
        st.builds(A.Comprehension, st.sampled_from(["list", "set", "gen"]), children, targets, children,
                  st.lists(children, max_size=2).map(tuple)),
        st.builds(A.Quantifier, st.sampled_from(["forall", "exists"]), targets, children, children),
        st.builds(A.Old, children),
    )


# deferred: keeps the strategies' reprs short (Hypothesis renders them, and a nested recursive repr is huge)
_EXPR = st.deferred(lambda: st.recursive(leaves, _compound, max_leaves=10))
_SMALL_EXPR = st.deferred(lambda: st.recursive(leaves, _compound, max_leaves=4))


def exprs(max_leaves: int = 10) -> st.SearchStrategy[A.Expr]:
    """Expressions of the spec language (any node type, nested); one shared strategy object per size."""
    return _EXPR if max_leaves > 4 else _SMALL_EXPR


def _range(lo_min: float) -> st.SearchStrategy[A.Range]:
    num = st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False).filter(math.isfinite))
    return st.builds(A.Range, num.filter(lambda v: v >= lo_min), num.filter(lambda v: v >= lo_min))


alphabets = st.one_of(st.sampled_from(sorted(A.ALPHABETS)).map(lambda n: A.Alphabet(n, A.ALPHABETS[n])),
                      st.text(min_size=1, max_size=6).map(lambda c: A.Alphabet("chars", c)))


def _types(children: st.SearchStrategy[A.TypeRef]) -> st.SearchStrategy[A.TypeRef]:
    return st.builds(A.TypeRef, st.sampled_from(["list", "dict", "tuple", "set", "Optional"]),
                     st.lists(children, min_size=1, max_size=2).map(tuple), st.just(A.NOSPAN),
                     st.none() | _range(-10**6), st.none() | _range(0), st.none() | alphabets)


base_types = st.builds(A.TypeRef, st.sampled_from(["int", "str", "bytes", "float", "bool", "mod.Cls", "None"]),
                       st.just(()), st.just(A.NOSPAN), st.none() | _range(-10**6), st.none() | _range(0),
                       st.none() | alphabets)
types = st.deferred(lambda: st.recursive(base_types, _types, max_leaves=4))
params = st.lists(st.builds(A.Param, names, types), max_size=3, unique_by=lambda p: p.name).map(tuple)
params1 = st.lists(st.builds(A.Param, names, types), min_size=1, max_size=3, unique_by=lambda p: p.name).map(tuple)

stmts = st.one_of(
    st.builds(A.Assign, st.lists(names, min_size=1, max_size=2).map(tuple), exprs(4)),
    st.builds(A.ExprStmt, exprs(4)),
    st.builds(A.Expect, exprs(4)),
    st.builds(A.ExpectRaises, dotted, exprs(4)),
)
clauses = st.one_of(
    st.builds(A.Requires, exprs()), st.builds(A.Ensures, exprs()), st.builds(A.Invariant, exprs()),
    st.builds(A.Example, exprs()), st.builds(A.Informal, names, texts),
    st.builds(A.Raises, dotted, exprs()), st.builds(A.Let, names, exprs()), st.builds(A.Rule, exprs()),
    st.builds(A.Scenario, params, st.lists(stmts, min_size=1, max_size=4).map(tuple)),
)
requirements = st.builds(A.Requirement, req_ids, texts, st.lists(clauses, min_size=1, max_size=3).map(tuple))
reqs = st.lists(requirements, max_size=2).map(tuple)
reqs1 = st.lists(requirements, min_size=1, max_size=2).map(tuple)
outcomes = st.one_of(
    st.just((A.StubOutcome("any"),)),
    st.lists(st.one_of(st.just(A.StubOutcome("any")), dotted.map(lambda e: A.StubOutcome("raises", exception=e)),
                       consts.map(lambda c: A.StubOutcome("value", value=c))), min_size=1, max_size=3).map(tuple),
)
methods = st.lists(st.builds(A.MethodDecl, names, params, st.none() | types, reqs), max_size=2).map(tuple)
classes = st.builds(A.ClassDecl, names, methods, reqs).filter(lambda c: bool(c.methods or c.requirements))


@st.composite
def specs(draw: st.DrawFn) -> A.Spec:
    """Whole specs with every kind of declaration."""
    return A.Spec(
        name=draw(names), title=draw(texts),
        target=draw(st.none() | st.sampled_from(["agent_store.py", "pkg.mod", "dir/x.py", "has space.py"])),
        imports=draw(st.lists(texts, max_size=2).map(tuple)),
        requirements=draw(reqs),
        functions=draw(st.lists(st.builds(A.FunctionDecl, names, params, st.none() | types, reqs),
                                max_size=2).map(tuple)),
        classes=draw(st.lists(classes, max_size=1).map(tuple)),
        assumptions=draw(st.lists(st.builds(A.Assume, req_ids, texts, exprs()), max_size=2).map(tuple)),
        lets=draw(st.lists(st.builds(A.Let, names, exprs()), max_size=2).map(tuple)),
        defs=draw(st.lists(st.builds(A.FuncDef, names, params, types, exprs()), max_size=2).map(tuple)),
        records=draw(st.lists(st.builds(A.RecordDecl, names, params1), max_size=2).map(tuple)),
        configs=draw(st.lists(st.builds(A.ConfigDecl, names, texts, params1, reqs,
                                        st.lists(st.builds(A.Let, names, exprs()), max_size=2).map(tuple)),
                              max_size=1).map(tuple)),
        stubs=draw(st.lists(st.builds(A.StubDecl, dotted, params, st.none() | types, outcomes),
                            max_size=2).map(tuple)),
    )
