"""The input domain of a benchmark task, inferred from its visible inputs, and whether a counterexample lies
inside it.

A differential spec compares a program with the reference on *every* input of the parameter types, but a
benchmark only means its tasks over some of them: HumanEval's prompts are about ASCII text and moderate
numbers. A difference on ``'\\x80'`` or on a 400-digit integer is a real difference of the two programs, yet
not evidence that the program is wrong *for the benchmark*. So each refutation is classified:

* the domain of a task is read off its **visible** inputs (HumanEval+ ``base_input``, the original tests'
  inputs; never the oracle's ``plus_input``) by the fixed rule below, written before any evaluation run;
* a counterexample outside it is reported as "outside the benchmark's domain", apart from the false-refutation
  count, and a refutation counts for recall only when its counterexample is inside (or cannot be read).

Rule (:func:`infer_domain`, :func:`outside`):

* **text**: when every visible string is ASCII, a counterexample holding a non-ASCII character is outside;
* **integers**: with ``d`` the number of digits of the largest visible integer magnitude (at least 1), a
  counterexample integer of magnitude ``>= 10**(d + 6)`` (six orders of magnitude beyond) is outside;
* **floats**: when every visible float is finite, an infinite or NaN counterexample float is outside; with
  ``m`` the largest visible float magnitude, one above ``max(m, 1) * 1e6`` is outside.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = ["InputDomain", "infer_domain", "outside", "call_arguments"]


@dataclass(frozen=True)
class InputDomain:
    """What a task's visible inputs show (see the module docstring for the rule).

    Attributes:
        ascii_text: every visible string is ASCII (or there is none).
        int_digits: digits of the largest visible integer magnitude (None: no integer seen).
        float_max: the largest finite visible float magnitude (None: no float seen).
        finite_floats: no visible float is infinite or NaN.
        inputs: how many visible inputs the domain was read from.
    """

    ascii_text: bool = True
    int_digits: int | None = None
    float_max: float | None = None
    finite_floats: bool = True
    inputs: int = 0

    def describe(self) -> str:
        """``ASCII text; integers below 10**9; finite floats up to 1e+06`` (the bounds of :func:`outside`)."""
        parts = ["ASCII text" if self.ascii_text else "any text"]
        if self.int_digits is not None:
            parts.append(f"integers below 10**{self.int_digits + 6}")
        if self.float_max is not None:
            parts.append(("finite floats" if self.finite_floats else "floats")
                         + f" up to {max(self.float_max, 1.0) * 1e6:g}")
        return "; ".join(parts) + f" (from {self.inputs} visible inputs)"


def _leaves(v: Any) -> Iterator[Any]:
    if isinstance(v, (list, tuple, set, frozenset)):
        for x in v:
            yield from _leaves(x)
    elif isinstance(v, dict):
        for k, x in v.items():
            yield from _leaves(k)
            yield from _leaves(x)
    else:
        yield v


def infer_domain(inputs: list[list[Any]]) -> InputDomain:
    """The :class:`InputDomain` of a task from its visible inputs (a list of argument lists)."""
    ascii_text, digits, fmax, finite = True, None, None, True
    for args in inputs:
        for v in _leaves(args):
            if isinstance(v, str):
                ascii_text = ascii_text and v.isascii()
            elif isinstance(v, bool):
                continue
            elif isinstance(v, int):
                d = len(str(abs(v)))
                digits = d if digits is None else max(digits, d)
            elif isinstance(v, float):
                if math.isfinite(v):
                    fmax = abs(v) if fmax is None else max(fmax, abs(v))
                else:
                    finite = False
                    fmax = 0.0 if fmax is None else fmax
    return InputDomain(ascii_text, digits, fmax, finite, len(inputs))


def call_arguments(call: str) -> list[Any] | None:
    """The argument values of a counterexample call text ``f([1, 2], 'a')``, or None when it is not a call
    of literal arguments (it is then treated as inside the domain: nothing can be said)."""
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(node, ast.Call):
        return None
    out: list[Any] = []
    try:
        for a in [*node.args, *(k.value for k in node.keywords)]:
            out.append(_literal(a))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    return out


class _Floats(ast.NodeTransformer):
    """``float('inf')``/``float('nan')`` (as counterexamples print them) become constants."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return ast.Constant(float(node.args[0].value))
        return node


def _literal(node: ast.expr) -> Any:
    return ast.literal_eval(_Floats().visit(node))


def outside(domain: InputDomain, call: str | None) -> str | None:
    """Why the counterexample ``call`` lies outside ``domain`` (``non-ASCII text '\\x80'``), or None when it is
    inside or cannot be read."""
    if not call:
        return None
    args = call_arguments(call)
    if args is None:
        return None
    for v in _leaves(args):
        if isinstance(v, str) and domain.ascii_text and not v.isascii():
            ch = next(c for c in v if not c.isascii())
            return f"non-ASCII text ({ch!r}); the task's visible inputs are ASCII"
        if isinstance(v, int) and not isinstance(v, bool) and domain.int_digits is not None \
                and abs(v) >= 10 ** (domain.int_digits + 6):
            return (f"an integer of {len(str(abs(v)))} digits; the task's visible integers have at most "
                    f"{domain.int_digits}")
        if isinstance(v, float) and domain.float_max is not None:
            if not math.isfinite(v) and domain.finite_floats:
                return f"a non-finite float ({v!r}); the task's visible floats are finite"
            if math.isfinite(v) and abs(v) > max(domain.float_max, 1.0) * 1e6:
                return f"a float of magnitude {abs(v):g}; the task's visible floats stay below {domain.float_max:g}"
    return None
