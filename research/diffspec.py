"""Differential specs: ``ensures result == reference(args)`` for a task, as a ``.req`` plus a support module.

For a task with entry point ``f(a, b)`` this writes, into a folder:

* ``eg_ref.py``: the trusted reference (the canonical solution, a full module);
* ``eg_cand.py``: the candidate program;
* ``eg_diff.py``: the target module the spec names. It defines ``f(a, b)``, which calls the candidate on
  *deep copies* of the arguments (a candidate that mutates its arguments cannot change what the reference
  sees), ``_eg_pre(a, b)``, true when the benchmark's input contract holds and the reference returns
  normally (an input on which the reference raises is outside the domain), and ``_eg_same(result, a, b)``,
  the reference's result on fresh deep copies compared with :func:`evalgap.research.oracle.same_result`
  under the benchmark's ``atol``;
* the ``.req`` text (:func:`differential_spec`): one precondition requirement (``requires _eg_pre(...)``) and
  one postcondition requirement (``ensures _eg_same(result, ...)``) on ``function f``, plus, for each
  parameter holding floats, an ``assume FINITE_<param>`` that its floats are finite (HumanEval+ never draws
  inf or NaN; :func:`finite_condition`) and at most 1e150 in magnitude unless HumanEval+'s own inputs of
  the task are larger (:func:`float_bound`), listed as an assumption of every verdict.

The parameter types are the task's ``param_types`` (some inferred from HumanEval+'s inputs);
:func:`domain_narrowings` lists every way the domain is narrowed below the prompt's signature.

The contract is HumanEval+'s ``contract`` field, every assert translated (statements, loops and helper calls
are kept as Python in ``_eg_pre``, which runs them in the reference module's namespace so helpers such as
HumanEval/32's ``poly`` resolve). :data:`BEYOND_CROSSHAIR` lists the tasks whose contract or reference
CrossHair cannot explore; their CrossHair verdict is ``unknown`` with that reason.
"""

from __future__ import annotations

import ast
import keyword
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from evalgap.research.dataset import Task

__all__ = ["DiffSpec", "differential_spec", "write_differential", "BEYOND_CROSSHAIR", "finite_condition",
           "float_bound", "FLOAT_BOUND", "domain_narrowings"]

#: task -> why CrossHair cannot decide its differential spec (reported as the ``unknown`` reason).
BEYOND_CROSSHAIR: dict[str, str] = {
    "HumanEval/32": "the reference is a float Newton iteration (1000 steps of math.pow over symbolic floats) "
                    "and the result is any root within tolerance, not one value: a differential `==` spec "
                    "does not state the requirement and CrossHair cannot explore the iteration",
}

_SPEC_WORDS = {"spec", "target", "import", "function", "class", "method", "requirement", "requires", "ensures",
               "invariant", "example", "informal", "scenario", "expect", "raises", "forall", "exists", "result",
               "True", "False", "None"}


@dataclass(frozen=True)
class DiffSpec:
    """A written differential spec.

    Attributes:
        spec_text: the ``.req`` text.
        folder: where ``eg_diff.py``, ``eg_ref.py``, ``eg_cand.py`` and ``diff.req`` were written.
        module: the target module name (``eg_diff``).
        renamed: ``(benchmark parameter, spec parameter)`` for parameters renamed to avoid spec keywords.
    """

    spec_text: str
    folder: Path
    module: str
    renamed: tuple[tuple[str, str], ...] = ()


def _spec_type(text: str) -> str:
    return text.replace(" ", "")


_LISTS = {"list", "List", "Sequence", "Iterable"}
_DICTS = {"dict", "Dict", "Mapping"}
_FINITE = "Inputs as HumanEval+ draws them: finite floats (no inf or NaN)"

#: the magnitude bound of float inputs (see :func:`float_bound`): below sqrt(max float) ~ 1.34e154 by a
#: factor of 13, so the sum, difference and product of any two such floats, and any square, is finite.
FLOAT_BOUND = 1e150


def _member_class(node: ast.expr) -> str:
    """The runtime class an ``isinstance`` guard of a Union member tests (``float``, ``list``, ``dict``...)."""
    name = node.value.id if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) else \
        getattr(node, "id", "")
    if name in _LISTS:
        return "list"
    if name in _DICTS:
        return "dict"
    return "tuple" if name in ("tuple", "Tuple") else name


def _finite(var: str, node: ast.expr, depth: int, bound: float | None) -> str | None:
    if isinstance(node, ast.Name):
        if node.id != "float":
            return None
        return f"abs({var}) <= {bound!r}" if bound is not None else f"math.isfinite({var})"
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        return None
    base = node.value.id
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base in _LISTS and len(args) == 1:
        inner = _finite(f"v{depth}", args[0], depth + 1, bound)
        return f"forall v{depth} in {var}: {inner}" if inner else None
    if base in _DICTS and len(args) == 2:  # JSON keys are strings: only the values can hold floats
        inner = _finite(f"v{depth}", args[1], depth + 1, bound)
        return f"forall v{depth} in {var}.values(): {inner}" if inner else None
    if base in ("Union", "Optional"):  # each member holding floats, guarded by an isinstance test
        conds = []
        for a in args:
            cond = _finite(var, a, depth, bound)
            if cond:
                conds.append(f"(not isinstance({var}, {_member_class(a)}) or ({cond}))")
        return " and ".join(conds) if conds else None
    if base in ("tuple", "Tuple") and not any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in args):
        conds = [c for i, a in enumerate(args) if (c := _finite(f"{var}[{i}]", a, depth, bound))]
        return " and ".join(f"({c})" for c in conds) if conds else None
    return None


def finite_condition(name: str, type_text: str, bound: float | None = None) -> str | None:
    """A spec expression stating that every float in parameter ``name`` of type ``type_text`` is finite
    (and, with ``bound``, at most ``bound`` in magnitude), or None when the type holds no float (or is not
    understood).

    HumanEval+'s inputs never contain inf or NaN, and its contracts do not exclude them; the differential
    spec makes "finite floats" an ``assume`` (listed as an assumption of every verdict), so a difference
    only on a non-finite float is outside the domain. E.g. ``("l", "List[float]")`` ->
    ``forall v0 in l: math.isfinite(v0)``; ``("x", "Union[float, int]")`` ->
    ``(not isinstance(x, float) or (math.isfinite(x)))``; with ``bound=1e150``, ``("x", "float")`` ->
    ``abs(x) <= 1e+150`` (false for inf and NaN too).
    """
    try:
        node = ast.parse(type_text, mode="eval").body
    except SyntaxError:
        return None
    return _finite(name, node, 0, bound)


def _floats(value: Any) -> Iterator[float]:
    if isinstance(value, float):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _floats(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)


def float_bound(task: Task) -> float | None:
    """The magnitude bound of ``task``'s float inputs in its differential spec: :data:`FLOAT_BOUND` (1e150),
    or None (finite floats only) when the benchmark's visible (base) inputs of the task hold a larger float
    (never its plus inputs: those are the oracle's).

    Rule: a finite float can still overflow the benchmark's arithmetic (HumanEval/20's distance
    ``|a - b|`` of ``5.5e305`` and ``-1.8e308`` is ``inf``, and a program and the reference then break the
    resulting tie differently), a difference that says nothing about the program's logic. Bounding inputs
    by 1e150 (< sqrt(max float) ~ 1.34e154) keeps every sum, difference and product of two inputs, and every
    square, finite. The bound never excludes an input HumanEval+ itself draws: a task whose inputs go above
    it keeps "finite" only.
    """
    largest = max((abs(f) for args in task.visible_inputs() for f in _floats(args) if math.isfinite(f)),
                  default=0.0)
    return FLOAT_BOUND if largest <= FLOAT_BOUND else None


def _annotations(task: Task) -> dict[str, str]:
    try:
        tree = ast.parse(task.prompt)
    except SyntaxError:
        return {}
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == task.entry_point), None)
    if fn is None:
        return {}
    return {a.arg: ast.unparse(a.annotation) if a.annotation is not None else "" for a in fn.args.args}


def domain_narrowings(task: Task) -> tuple[str, ...]:
    """The ways ``task``'s differential spec narrows the input domain below the prompt's signature, one
    Markdown line each (every verdict on the spec assumes them; reports list them per task).

    * a parameter whose type was inferred from HumanEval+'s inputs (a bare ``list``, ``Any``, ``List[Any]``
      or no annotation; :func:`evalgap.research.humaneval.infer_type_of_all`);
    * the floats assumption of each parameter holding floats: finite, and at most :func:`float_bound` in
      magnitude when it applies.

    Returns:
        e.g. ``("`values: List[Any]` typed `list[Union[None, int]]` from HumanEval+'s inputs",
        "`numbers`: finite floats of magnitude at most 1e+150")``; empty when nothing is narrowed.
    """
    declared = _annotations(task)
    bound = float_bound(task)
    out = []
    for name, text in task.param_types:
        before = declared.get(name)
        if before is not None and before != text:
            shown = f"`{name}: {before}`" if before else f"`{name}` (no annotation)"
            out.append(f"{shown} typed `{text}` from the benchmark's inputs")
    for name, text in task.param_types:
        if finite_condition(name, text) is not None:
            out.append(f"`{name}`: finite floats" + (f" of magnitude at most {bound:g}" if bound else
                                                     " (HumanEval+'s inputs exceed 1e150: no magnitude bound)"))
    return tuple(out)


def differential_spec(task: Task, in_domain: bool = False) -> tuple[str, list[str]]:
    """The ``.req`` text of ``task``'s differential spec and its parameter names (renamed off spec words).

    ``in_domain``: also assume the benchmark's input domain (:mod:`evalgap.research.domain_spec`), so that the
    search stays inside it (the ``crosshair-domain`` evaluator).

    Returns:
        ``(spec text, parameter names used in the spec and in eg_diff.py)``.
    """
    names = [n if n not in _SPEC_WORDS and not keyword.iskeyword(n) else f"{n}_" for n, _ in task.param_types]
    params = ", ".join(f"{n}: {_spec_type(t)}" for n, (_, t) in zip(names, task.param_types))
    args = ", ".join(names)
    sid = "diff_" + "".join(c if c.isalnum() else "_" for c in task.task_id)
    atol = f"{task.atol:g}"
    bound = float_bound(task)
    what = _FINITE if bound is None else f"{_FINITE[:-1]}, of magnitude at most {bound:g})"
    assumes = "".join(f'  assume FINITE_{n} "{what} in {n}.": {cond}\n'
                      for n, (_, t) in zip(names, task.param_types) if (cond := finite_condition(n, t, bound)))
    if in_domain:
        from evalgap.research.domain_spec import domain_assumptions

        assumes += domain_assumptions(task, names)
    text = (
        f'spec {sid} "Differential spec of {task.task_id}: same result as the canonical solution"\n'
        f"  target: eg_diff.py\n{assumes}\n"
        f"function {task.entry_point}({params})\n"
        f'  requirement PRE "Inputs meet the benchmark\'s input contract and the reference returns normally '
        f'on them (otherwise they are outside the domain)."\n'
        f"    requires _eg_pre({args})\n"
        f'  requirement DIFF "The result equals the reference\'s on copies of the inputs (atol {atol})."\n'
        f"    ensures _eg_same(result{', ' if args else ''}{args})\n"
    )
    return text, names


def _support_module(task: Task, names: list[str]) -> str:
    args = ", ".join(names)
    copies = ", ".join(f"copy.deepcopy({n})" for n in names)
    contract = task.contract.replace("\t", "    ")
    orig = [n for n, _ in task.param_types]
    rebind = "".join(f"    {o} = {n}\n" for o, n in zip(orig, names) if o != n)
    body = "".join(f"    {ln}\n" for ln in contract.splitlines()) if contract.strip() else ""
    return (
        "import copy\n"
        "from eg_ref import *  # noqa: F403 - helpers the contract uses (HumanEval/32's poly)\n"
        "import eg_ref as _eg_ref\n"
        "import eg_cand as _eg_cand\n"
        "from evalgap.research.oracle import same_result as _eg_same_result\n\n"
        f"_EG_ATOL = {task.atol!r}\n\n"
        f"def {task.entry_point}({args}):\n"
        f"    return _eg_cand.{task.entry_point}({copies})\n\n"
        f"def _eg_contract({args}):\n{rebind}{body}    return True\n\n"
        f"def _eg_pre({args}) -> bool:\n"
        "    try:\n"
        f"        _eg_contract({copies})\n"
        f"        _eg_ref.{task.entry_point}({copies})\n"
        "    except Exception:\n"
        "        return False\n"
        "    return True\n\n"
        f"def _eg_same(result{', ' if args else ''}{args}) -> bool:\n"
        f"    return _eg_same_result(result, _eg_ref.{task.entry_point}({copies}), _EG_ATOL)\n"
    )


def write_differential(task: Task, candidate_code: str, folder: Path, in_domain: bool = False) -> DiffSpec:
    """Write the differential spec of ``task`` for ``candidate_code`` into ``folder`` (created if needed);
    ``in_domain`` as for :func:`differential_spec`.

    Returns:
        The :class:`DiffSpec` (``folder / "diff.req"`` holds the spec text).
    """
    folder.mkdir(parents=True, exist_ok=True)
    text, names = differential_spec(task, in_domain)
    (folder / "eg_ref.py").write_text(task.reference, encoding="utf-8")
    (folder / "eg_cand.py").write_text(candidate_code, encoding="utf-8")
    (folder / "eg_diff.py").write_text(_support_module(task, names), encoding="utf-8")
    (folder / "diff.req").write_text(text, encoding="utf-8")
    renamed = tuple((o, n) for (o, _), n in zip(task.param_types, names) if o != n)
    return DiffSpec(text, folder, "eg_diff", renamed)
