"""The ``mbppplus`` adapter of ``evalgap compare mbppplus:DATA_DIR``: MBPP+ tasks as a dataset.

Sources (``DATA_DIR/mbpp/``, see its ``SOURCE.txt``):

* ``MbppPlus.json.gz``: EvalPlus's MBPP+ in the v0.1.0 format (399 tasks; Apache-2.0 over CC-BY-4.0 MBPP
  text): ``task_id`` (``Mbpp/N``), ``prompt``, ``entry_point``, ``canonical_solution``, ``base_input`` and
  ``plus_input`` (JSON text), ``atol``, ``contract`` (asserts marked ``# $_CONTRACT_$``), ``assertion`` (the
  base tests as asserts);
* ``sanitized-mbpp.json``: the 427 hand-verified MBPP problems (Austin et al. 2021, CC-BY-4.0):
  ``test_imports`` and the original reference ``code``.

A task: prose = the prompt's text, reference = the canonical solution (the **ground truth**, compared on
``base_input + plus_input`` with the task's ``atol``), tests = ``check(candidate)`` running ``assertion``
(with the MBPP ``test_imports``, and ``math``) with the entry point bound to the candidate, contract = the
asserts of ``contract`` (the differential spec's preconditions). Candidates: the canonical solution
(source ``canonical``) and, where sanitized MBPP has the task, MBPP's original reference program (source
``mbpp-original``; EvalPlus replaced several of them as wrong). The data holds no model outputs.

Input types: MBPP+ stores tuples, sets and complex numbers as JSON lists/strings and EvalPlus restores them
per task (``mbpp_deserialize_inputs``); this adapter does not (the evaluators take JSON inputs), so on those
tasks the ground truth runs on lists, and an input on which the reference raises is outside the domain
(counted as skipped). Parameter types come from the first input; a parameter the contract requires to be a
``tuple`` (``isinstance(p, tuple)``) is typed ``tuple`` so the differential spec's inputs meet the contract.
"""

from __future__ import annotations

import ast
import gzip
import json
import re
import warnings
from pathlib import Path
from typing import Any, Iterable

from evalgap.research.dataset import Candidate, Dataset, Task
from evalgap.research.errors import DatasetError
from evalgap.research.humaneval import strip_contract_marker

__all__ = ["build_mbppplus", "mbpp_check_source"]


def mbpp_check_source(entry_point: str, assertion: str, imports: list[str]) -> str:
    """``check(candidate)`` running MBPP+'s ``assertion`` text with ``entry_point`` bound to the candidate."""
    text = "\n".join(["import math", *imports, assertion.strip()]) + "\n"
    return (f"def check(candidate):\n    _eg_ns = {{{entry_point!r}: candidate, '__name__': 'mbpp_tests'}}\n"
            f"    exec(compile({text!r}, 'mbpp_assertion.py', 'exec'), _eg_ns)\n")


def _infer(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float, str)):
        return type(value).__name__
    if isinstance(value, list):
        inner = {_infer(v) for v in value}
        return f"list[{inner.pop()}]" if len(inner) == 1 else "list"
    if isinstance(value, dict):
        return "dict"
    return "Any"


def _params(code: str, entry: str) -> list[str]:
    try:
        with warnings.catch_warnings():  # the benchmark's code has invalid escapes ('\w'): not our warning
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = ast.parse(code)
    except SyntaxError:
        return []
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry), None)
    return [a.arg for a in fn.args.args] if fn else []


def _prose(prompt: str) -> str:
    text = prompt.strip().strip('"').strip()
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("assert ")).strip() or text


def _load(path: Path) -> Any:
    if not path.is_file():
        raise DatasetError(f"{path} not found (is the data folder right? see mbpp/SOURCE.txt)")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def _task(r: dict[str, Any], imports: list[str]) -> Task:
    entry = r["entry_point"]
    visible = list(json.loads(r["base_input"]) if isinstance(r["base_input"], str) else r["base_input"])
    inputs = visible + list(json.loads(r["plus_input"]) if isinstance(r["plus_input"], str) else r["plus_input"])
    contract = strip_contract_marker(r.get("contract", ""))
    tuples = set(re.findall(r"isinstance\((\w+),\s*tuple\)", contract))
    names = _params(r["canonical_solution"], entry)
    first = visible[0] if visible else []
    types = tuple((n, "tuple" if n in tuples else (_infer(first[i]) if i < len(first) else "Any"))
                  for i, n in enumerate(names))
    return Task(task_id=r["task_id"], entry_point=entry, prose=_prose(r["prompt"]), prompt=r["prompt"],
                reference=r["canonical_solution"].lstrip("\n"),
                tests=mbpp_check_source(entry, r.get("assertion", ""), imports),
                ground_truth_inputs=json.dumps(inputs) if inputs else "", atol=float(r.get("atol") or 0),
                contract=contract, param_types=types, base_inputs=json.dumps(visible) if visible else "")


def build_mbppplus(data_dir: Path, task_ids: Iterable[str] | None = None, specs_dir: Path | None = None) -> Dataset:
    """The MBPP+ dataset from ``data_dir/mbpp`` (or ``data_dir`` itself when it is that folder).

    Args:
        data_dir: the ``shared/data`` folder.
        task_ids: keep only these (``Mbpp/2``; None: all 399).
        specs_dir: unused here; accepted for the adapter interface.

    Raises:
        DatasetError: a file is missing or a task ID is unknown.
    """
    root = data_dir / "mbpp" if (data_dir / "mbpp").is_dir() else data_dir
    plus = _load(root / "MbppPlus.json.gz")
    sanitized = {f"Mbpp/{r['task_id']}": r for r in _load(root / "sanitized-mbpp.json")}
    rows = {r["task_id"]: r for r in plus}
    wanted = list(task_ids) if task_ids is not None else list(rows)
    unknown = [t for t in wanted if t not in rows]
    if unknown:
        raise DatasetError(f"unknown MBPP+ task(s) {', '.join(unknown[:5])}")
    tasks: list[Task] = []
    cands: list[Candidate] = []
    for tid in wanted:
        orig = sanitized.get(tid)
        task = _task(rows[tid], list(orig.get("test_imports", [])) if orig else [])
        tasks.append(task)
        cands.append(Candidate(f"{tid}#canonical", tid, "canonical", task.reference, labels=(("mbpp", "canonical"),)))
        if orig and orig.get("code"):
            cands.append(Candidate(f"{tid}#original", tid, "mbpp-original", orig["code"],
                                   labels=(("mbpp", "original-reference"),)))
    return Dataset("mbppplus", tuple(tasks), tuple(cands), str(root))
