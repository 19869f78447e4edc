"""First-order mutants of one function of the target, by the standard mutation operators.

Operators (Offutt et al. 1996, "An experimental determination of sufficient mutant operators"; the names of
PIT and mutmut): ``ROR`` relational operator replacement (``<`` -> ``<=`` ...), ``AOR`` arithmetic operator
replacement (``+`` -> ``-`` ...), ``LCR`` logical connector replacement (``and`` <-> ``or``), ``UOI`` removal of
``not``, ``CRP`` constant replacement (an integer ``k`` -> ``k + 1`` and ``k - 1``: boundary mutants; a bool
negated; a non-empty string emptied), ``SDL`` statement deletion (a statement other than a ``return``
replaced by ``pass``) and ``RVR`` return value replacement (``return e`` -> ``return None``).

Only the function's own body is mutated (a method as ``Class.name``); each mutant changes one node. Parsing
and unparsing the target's source never runs it.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Callable, Iterator

__all__ = ["Mutant", "mutants_of", "OPERATORS", "MutationError"]


class MutationError(Exception):
    """The target's source does not parse, or it has no function of that name."""


@dataclass(frozen=True)
class Mutant:
    """One mutant of one function.

    Attributes:
        function: the mutated function (``gcd``, ``Stack.push``).
        operator: the mutation operator (``ROR``, ``AOR``, ``LCR``, ``UOI``, ``CRP``, ``SDL``, ``RVR``).
        line: the 1-based line of the mutated node in the original source.
        before, after: the mutated code, before and after (one expression or statement, unparsed).
        source: the whole mutated module (``ast.unparse``: comments and layout are not kept).
    """

    function: str
    operator: str
    line: int
    before: str
    after: str
    source: str

    @property
    def description(self) -> str:
        """``gcd line 4: `a % b` -> `a // b` (AOR)``."""
        return f"{self.function} line {self.line}: `{self.before}` -> `{self.after}` ({self.operator})"


_ROR: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                          ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
                          ast.IsNot: ast.Is}
_AOR: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Div: ast.Mult,
                          ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}

OPERATORS = ("ROR", "AOR", "LCR", "UOI", "CRP", "SDL", "RVR")

_Edit = Callable[[ast.AST], "ast.AST | None"]


def _edits(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """``(operator, replacement)`` for each mutation of ``node`` itself."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _ROR:
        yield "ROR", ast.Compare(node.left, [_ROR[type(node.ops[0])]()], node.comparators)
    elif isinstance(node, ast.BinOp) and type(node.op) in _AOR:
        yield "AOR", ast.BinOp(node.left, _AOR[type(node.op)](), node.right)
    elif isinstance(node, ast.AugAssign) and type(node.op) in _AOR:
        yield "AOR", ast.AugAssign(node.target, _AOR[type(node.op)](), node.value)
    elif isinstance(node, ast.BoolOp):
        yield "LCR", ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "UOI", node.operand
    elif isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            yield "CRP", ast.Constant(not v)
        elif isinstance(v, int):
            yield "CRP", ast.Constant(v + 1)
            yield "CRP", ast.Constant(v - 1)
        elif isinstance(v, str) and v:
            yield "CRP", ast.Constant("")
    elif isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None):
        yield "RVR", ast.Return(ast.Constant(None))


def _find(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    cls, _, fn = name.rpartition(".")
    body: list[ast.stmt] = tree.body
    if cls:
        c = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if c is None:
            return None
        body = c.body
    return next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fn), None)


def _sites(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[ast.AST, str, str, ast.AST | None]]:
    """Every (node, operator, field path, replacement) in the function's body, in source order; a ``None``
    replacement with ``SDL`` deletes a statement."""
    out: list[tuple[ast.AST, str, str, ast.AST | None]] = []
    docstring = fn.body[0] if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(
        getattr(fn.body[0], "value", None), ast.Constant) else None
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if node is docstring or (docstring is not None and node is docstring.value):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            for op, rep in _edits(node):
                out.append((node, op, "", rep))
            for fld in ("body", "orelse"):
                stmts = getattr(node, fld, None)
                if isinstance(stmts, list) and len(stmts) > 1:
                    for s in stmts:
                        if not isinstance(s, (ast.Return, ast.Pass)) and s is not docstring:
                            out.append((s, "SDL", fld, None))
    top = [s for s in fn.body if s is not docstring]
    if len(top) > 1:
        for s in top:
            if not isinstance(s, (ast.Return, ast.Pass)) and not any(o is s and op == "SDL" for o, op, _, _ in out):
                out.append((s, "SDL", "body", None))
    out.sort(key=lambda t: (getattr(t[0], "lineno", 0), getattr(t[0], "col_offset", 0)))
    return out


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, rep: ast.AST | None) -> None:
        self.target, self.rep = target, rep

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for fld, old in ast.iter_fields(node):
            if isinstance(old, list):
                new: list[object] = []
                for item in old:
                    if item is self.target:
                        new.append(self.rep if self.rep is not None else ast.Pass())
                    elif isinstance(item, ast.AST):
                        new.append(self.visit(item))
                    else:
                        new.append(item)
                setattr(node, fld, new)
            elif old is self.target:
                setattr(node, fld, self.rep if self.rep is not None else ast.Pass())
            elif isinstance(old, ast.AST):
                setattr(node, fld, self.visit(old))
        return node


def mutants_of(source: str, function: str, limit: int = 16) -> list[Mutant]:
    """Up to ``limit`` first-order mutants of ``function`` in ``source``, spread over the operators.

    Args:
        source: the target module's text.
        function: a top-level function name, or ``Class.method``.
        limit: at most this many mutants (>= 1); picked round-robin over the operators, in source order
            within each, so a small limit still samples every operator that applies.

    Returns:
        The mutants, in a deterministic order; mutants whose text equals the original are left out.

    Raises:
        MutationError: the source does not parse, or has no such function.
    """
    try:
        tree = ast.parse(source)
        ast.unparse(tree)
    except SyntaxError as exc:
        raise MutationError(f"the target does not parse: {exc.msg} (line {exc.lineno})") from exc
    except (RecursionError, ValueError, MemoryError) as exc:
        raise MutationError(f"the target cannot be mutated ({type(exc).__name__}: nested too deeply or too "
                            "large)") from exc
    fn = _find(tree, function)
    if fn is None:
        raise MutationError(f"the target has no function {function!r} to mutate")
    original = ast.unparse(tree)
    by_op: dict[str, list[Mutant]] = {op: [] for op in OPERATORS}
    seen: set[str] = {original}
    for idx, (node, op, _fld, rep) in enumerate(_sites(fn)):
        if len(by_op[op]) >= limit:  # enough of this operator for any round-robin pick
            continue
        clone = copy.deepcopy(tree)
        cfn = _find(clone, function)
        assert cfn is not None
        cnode = _sites(cfn)[idx][0]
        crep = copy.deepcopy(rep) if rep is not None else None
        mutated = _Replace(cnode, crep).visit(clone)
        ast.fix_missing_locations(mutated)
        text = ast.unparse(mutated)
        if text in seen:
            continue
        seen.add(text)
        before = ast.unparse(node)
        after = ast.unparse(rep) if rep is not None else "pass"
        by_op[op].append(Mutant(function, op, getattr(node, "lineno", fn.lineno), before.splitlines()[0],
                                after.splitlines()[0] if after else after, text + "\n"))
    out: list[Mutant] = []
    while len(out) < limit and any(by_op.values()):
        for op in OPERATORS:
            if by_op[op] and len(out) < limit:
                out.append(by_op[op].pop(0))
    return out
