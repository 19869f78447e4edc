"""Literal values of the visible tests, for the special-casing rule EG407 (:mod:`evalgap.verifier.analysis.gaming`).

The inputs a visible test passes to the code under test and the outputs it expects, as hashable keys
(:func:`literal_key`), without the trivial constants that any code contains (:func:`is_trivial`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Iterable

from evalgap.verifier.analysis.visible_cases import VisibleCase, read_cases

__all__ = ["TestLiterals", "VisibleCase", "literal_key", "literal_value", "is_trivial"]


def literal_key(value: Any) -> Any:
    """A hashable, order-insensitive-where-Python-is key of a literal value (lists and tuples compare
    alike); raises TypeError for values that are not plain literals."""
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(literal_key(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(literal_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((literal_key(k), literal_key(v)) for k, v in value.items()))
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return ("bool", value) if isinstance(value, bool) else value
    raise TypeError(f"not a literal: {type(value).__name__}")


def is_trivial(value: Any) -> bool:
    """True for constants too common to count as special-casing (the issue's rule): None, booleans,
    numbers -1..2, empty or one-character strings/bytes, empty containers, and short containers of trivial
    items."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return value in (-1, 0, 1, 2)
    if isinstance(value, (str, bytes)):
        return len(value) <= 1  # single characters are character-class tests (``c == "<"``), not cases
    if isinstance(value, (list, tuple, set, frozenset)):
        return len(value) <= 2 and all(is_trivial(v) for v in value)
    if isinstance(value, dict):
        return len(value) == 0
    return True


def literal_value(node: ast.AST) -> tuple[bool, Any]:
    """(True, value) when ``node`` is a literal expression (``ast.literal_eval``), else (False, None)."""
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


@dataclass(frozen=True)
class TestLiterals:
    """Non-trivial literal values of the visible tests.

    Attributes:
        inputs: keys (:func:`literal_key`) of argument values passed to the code under test.
        outputs: keys of expected values (right-hand sides of ``==`` in asserts).
        shown: key -> the value's source text, for messages.
        cases: every call of a function under test with its arguments, expected output and place
            (:func:`evalgap.verifier.analysis.visible_cases.read_cases`).
    """

    __test__ = False  # not a pytest test class

    inputs: frozenset[Any] = frozenset()
    outputs: frozenset[Any] = frozenset()
    shown: dict[Any, str] = field(default_factory=dict, compare=False)
    cases: tuple[VisibleCase, ...] = ()

    @staticmethod
    def from_values(inputs: Iterable[Any], outputs: Iterable[Any]) -> "TestLiterals":
        """Build from Python values (e.g. a JSON test table); trivial and non-literal values are dropped."""
        ins: set[Any] = set()
        outs: set[Any] = set()
        shown: dict[Any, str] = {}
        for bucket, values in ((ins, inputs), (outs, outputs)):
            for v in values:
                try:
                    if not is_trivial(v):
                        k = literal_key(v)
                        bucket.add(k)
                        shown.setdefault(k, repr(v))
                except TypeError:
                    continue
        return TestLiterals(frozenset(ins), frozenset(outs), shown)

    @staticmethod
    def from_test_source(source: str, path: str = "<test>",
                         targets: frozenset[str] | None = None) -> "TestLiterals":
        """Collect literals from test code: arguments of every call inside an ``assert`` (and of calls
        in ``test_*`` functions) are inputs; comparands of ``==`` in asserts are outputs; besides, the
        cases of every call of a function under test (``targets``; None: any non-builtin called name),
        wherever it is (:func:`evalgap.verifier.analysis.visible_cases.read_cases`), named by ``path``.
        Unparsable source gives no literals."""
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return TestLiterals()
        ins: list[Any] = []
        outs: list[Any] = []

        def take_call_args(node: ast.AST) -> None:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call):
                    for a in [*sub.args, *(k.value for k in sub.keywords)]:
                        ok, v = literal_value(a)
                        if ok:
                            ins.append(v)

        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                take_call_args(node.test)
                for cmp in ast.walk(node.test):
                    if isinstance(cmp, ast.Compare) and any(isinstance(o, ast.Eq) for o in cmp.ops):
                        for side in (cmp.left, *cmp.comparators):
                            ok, v = literal_value(side)
                            if ok:
                                outs.append(v)
            elif isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                take_call_args(node)
        cases = read_cases(source, path, targets)
        for c in cases:
            ins.extend(a for a, k in zip(c.args, c.known) if k)
            if c.has_expected:
                outs.append(c.expected)
        lits = TestLiterals.from_values(ins, outs)
        return TestLiterals(lits.inputs, lits.outputs, lits.shown, cases)

    def merge(self, other: "TestLiterals") -> "TestLiterals":
        """The union of two literal sets."""
        return TestLiterals(self.inputs | other.inputs, self.outputs | other.outputs, {**self.shown, **other.shown},
                            self.cases + other.cases)

    def __bool__(self) -> bool:
        return bool(self.inputs or self.outputs or self.cases)


