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
  inf or NaN; :func:`finite_condition`), listed as an assumption of every verdict.

The contract is HumanEval+'s ``contract`` field, every assert translated (statements, loops and helper calls
are kept as Python in ``_eg_pre``, which runs them in the reference module's namespace so helpers such as
HumanEval/32's ``poly`` resolve). :data:`BEYOND_CROSSHAIR` lists the tasks whose contract or reference
CrossHair cannot explore; their CrossHair verdict is ``unknown`` with that reason.
"""

from __future__ import annotations

import ast
import keyword
from dataclasses import dataclass
from pathlib import Path

from evalgap.research.dataset import Task

__all__ = ["DiffSpec", "differential_spec", "write_differential", "BEYOND_CROSSHAIR", "finite_condition"]

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
_FINITE = "Inputs as HumanEval+ draws them: finite floats (no inf or NaN)"


def _finite(var: str, node: ast.expr, depth: int) -> str | None:
    if isinstance(node, ast.Name):
        return f"math.isfinite({var})" if node.id == "float" else None
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        return None
    base = node.value.id
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base in _LISTS and len(args) == 1:
        inner = _finite(f"v{depth}", args[0], depth + 1)
        return f"forall v{depth} in {var}: {inner}" if inner else None
    if base in ("Union", "Optional"):  # each member holding floats, guarded by an isinstance test
        conds = []
        for a in args:
            member = a.value.id if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name) else \
                getattr(a, "id", "")
            cond = _finite(var, a, depth)
            if cond:
                conds.append(f"(not isinstance({var}, {'float' if member == 'float' else 'list'}) or ({cond}))")
        return " and ".join(conds) if conds else None
    if base in ("tuple", "Tuple") and not any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in args):
        conds = [c for i, a in enumerate(args) if (c := _finite(f"{var}[{i}]", a, depth))]
        return " and ".join(f"({c})" for c in conds) if conds else None
    return None


def finite_condition(name: str, type_text: str) -> str | None:
    """A spec expression stating that every float in parameter ``name`` of type ``type_text`` is finite, or
    None when the type holds no float (or is not understood).

    HumanEval+'s inputs never contain inf or NaN, and its contracts do not exclude them; the differential
    spec makes "finite floats" an ``assume`` (listed as an assumption of every verdict), so a difference
    only on a non-finite float is outside the domain. E.g. ``("l", "List[float]")`` ->
    ``forall v0 in l: math.isfinite(v0)``; ``("x", "Union[float, int]")`` ->
    ``(not isinstance(x, float) or math.isfinite(x))``.
    """
    try:
        node = ast.parse(type_text, mode="eval").body
    except SyntaxError:
        return None
    return _finite(name, node, 0)


def differential_spec(task: Task) -> tuple[str, list[str]]:
    """The ``.req`` text of ``task``'s differential spec and its parameter names (renamed off spec words).

    Returns:
        ``(spec text, parameter names used in the spec and in eg_diff.py)``.
    """
    names = [n if n not in _SPEC_WORDS and not keyword.iskeyword(n) else f"{n}_" for n, _ in task.param_types]
    params = ", ".join(f"{n}: {_spec_type(t)}" for n, (_, t) in zip(names, task.param_types))
    args = ", ".join(names)
    sid = "diff_" + "".join(c if c.isalnum() else "_" for c in task.task_id)
    atol = f"{task.atol:g}"
    assumes = "".join(f'  assume FINITE_{n} "{_FINITE} in {n}.": {cond}\n'
                      for n, (_, t) in zip(names, task.param_types) if (cond := finite_condition(n, t)))
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


def write_differential(task: Task, candidate_code: str, folder: Path) -> DiffSpec:
    """Write the differential spec of ``task`` for ``candidate_code`` into ``folder`` (created if needed).

    Returns:
        The :class:`DiffSpec` (``folder / "diff.req"`` holds the spec text).
    """
    folder.mkdir(parents=True, exist_ok=True)
    text, names = differential_spec(task)
    (folder / "eg_ref.py").write_text(task.reference, encoding="utf-8")
    (folder / "eg_cand.py").write_text(candidate_code, encoding="utf-8")
    (folder / "eg_diff.py").write_text(_support_module(task, names), encoding="utf-8")
    (folder / "diff.req").write_text(text, encoding="utf-8")
    renamed = tuple((o, n) for (o, _), n in zip(task.param_types, names) if o != n)
    return DiffSpec(text, folder, "eg_diff", renamed)
