"""Adapters from HumanEval and its derived benchmarks (as laid out in ``shared/data``) to a :class:`Dataset`.

Sources read (each folder's ``SOURCE.txt`` gives provenance and licence):

* ``humaneval/HumanEval.jsonl.gz`` (MIT): prompt, canonical solution, the benchmark's ``check(candidate)`` tests;
* ``humanevalplus/HumanEvalPlus.jsonl.gz`` (Apache-2.0, EvalPlus v0.1.10): ``base_input + plus_input`` (the
  ground-truth inputs), its revised ``canonical_solution`` (the trusted reference they are compared against,
  as EvalPlus does), ``atol``, and ``contract`` (input-validity asserts marked ``# $_CONTRACT_$``);
* ``llm-runs/*.jsonl[.gz]``, e.g. ``humaneval_gpt-3.5-turbo_runs.jsonl.gz`` (no licence: read locally, never copied into the
  project): 10 gpt-3.5-turbo runs per task; the first run of each task has ``run: null`` and is run 1 here;
* ``humanevalfix-python/humanevalfix_python_pairs.jsonl.gz``: HumanEvalFix buggy programs (the visible
  ``check`` is cut off) and the fixed (= canonical) programs.

Nothing is downloaded: every function reads from the folder given.
"""

from __future__ import annotations

import ast
import gzip
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable

from evalgap.research.dataset import Candidate, Dataset, Task
from evalgap.research.errors import DatasetError

__all__ = ["load_tasks", "llm_run_candidates", "humanevalfix_candidates", "canonical_candidates",
           "build_dataset", "ADAPTERS", "spec_file_stem", "strip_contract_marker", "docstring_of",
           "infer_type_of_all"]

#: adapter names accepted by :func:`build_dataset` (``evalgap compare ADAPTER:DATA_DIR``).
ADAPTERS = ("humaneval", "llm-runs", "humanevalfix", "humaneval-all")


def _read_jsonl_gz(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise DatasetError(f"{path} not found (is the data folder right? see its SOURCE.txt)")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def docstring_of(prompt: str, entry_point: str) -> str:
    """The docstring of ``entry_point`` in ``prompt`` (cleaned), or the prompt itself when it has none."""
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        return prompt.strip()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return (ast.get_docstring(node) or prompt).strip()
    return prompt.strip()


def strip_contract_marker(contract: str) -> str:
    """HumanEval+'s contract with its ``# $_CONTRACT_$`` markers removed and dedented to column 0."""
    lines = [re.sub(r"#\s*\$_CONTRACT_\$\s*$", "", ln).rstrip() for ln in contract.splitlines()]
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        return ""
    indent = min(len(ln) - len(ln.lstrip()) for ln in lines)
    return "\n".join(ln[indent:] for ln in lines)


def _infer_type(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return infer_type_of_all([value])
    if isinstance(value, dict):
        return _dict_type(list(value.keys()), list(value.values()))
    return "Any"


def _dict_type(keys: list[Any], values: list[Any]) -> str:
    if not keys:
        return "dict"
    return f"dict[{infer_type_of_all(keys)}, {infer_type_of_all(values)}]"


def _join_types(kinds: set[str]) -> str:
    if not kinds or "Any" in kinds:  # a union with Any is Any
        return "Any"
    return next(iter(kinds)) if len(kinds) == 1 else f"Union[{', '.join(sorted(kinds))}]"


def infer_type_of_all(values: list[Any]) -> str:
    """The narrowest type text covering every value of ``values`` (JSON inputs of one parameter).

    Scalars give ``None``/``bool``/``int``/``float``/``str``; all list values are merged into one ``list[T]``
    whose element type ``T`` is inferred the same way from every element of every list (``list`` alone when
    every list is empty); all dict values likewise into one ``dict[K, V]`` from every key and every value
    (``dict`` alone when every dict is empty); several kinds give ``Union[...]`` (sorted; ``None`` is a member
    like any other: ``Union[None, int]`` is ``Optional[int]``), no values (or a value of another type)
    ``Any``. E.g. ``[[1, 2], [], [3.5]]`` -> ``list[Union[float, int]]``; ``[[1, None, {"a": "b"}]]`` ->
    ``list[Union[None, dict[str, str], int]]``.
    """
    kinds: set[str] = set()
    elems: list[Any] = []
    keys: list[Any] = []
    vals: list[Any] = []
    saw_list = saw_dict = False
    for v in values:
        if isinstance(v, list):
            saw_list = True
            elems.extend(v)
        elif isinstance(v, dict):
            saw_dict = True
            keys.extend(v.keys())
            vals.extend(v.values())
        else:
            kinds.add(_infer_type(v))
    if saw_list:
        kinds.add(f"list[{infer_type_of_all(elems)}]" if elems else "list")
    if saw_dict:
        kinds.add(_dict_type(keys, vals))
    return _join_types(kinds)


#: annotations refined from HumanEval+'s (base) inputs: a bare list, ``Any``, a list of ``Any``
_REFINED = {"list", "List", "Any", "List[Any]", "list[Any]", "typing.Any", "typing.List[typing.Any]"}
#: annotations that say "any value": their domain keeps every JSON scalar kind besides the kinds the inputs show
_ANY = {"Any", "List[Any]", "list[Any]", "typing.Any", "typing.List[typing.Any]"}
#: one value of each scalar kind (None, bool, int, float, str): what "any value" holds whatever the inputs show
_SCALARS: list[Any] = [None, True, 0, 0.0, ""]


def _param_types(prompt: str, entry_point: str, inputs: list[list[Any]] | None) -> tuple[tuple[str, str], ...]:
    """``(name, type text)`` of ``entry_point``'s parameters: the prompt's annotation, except that a bare
    ``list``/``List``, ``Any`` or ``List[Any]`` annotation is replaced by the type inferred from the values
    of *all* the HumanEval+ inputs of that parameter (:func:`infer_type_of_all`; for a list annotation from
    the list values only, and only when that gives a ``list[...]``; never when the inferred type still holds
    ``Any``), and an unannotated parameter gets its type from all the inputs.

    An ``Any`` (or list-of-``Any``) annotation keeps every scalar kind (None, bool, int, float, str) beside the
    kinds the inputs show: the prompt says "any value", and the visible inputs alone would drop kinds (bools,
    for HumanEval/22) that only the oracle's plus inputs hold. This narrows the domain to the kinds of values
    the benchmark shows (a differential spec's verdict assumes it; :func:`evalgap.research.diffspec.domain_narrowings` lists it per task). It also keeps CrossHair off
    ``Any``, for which it picks arbitrary classes, e.g. a ``signal.Signals`` member (an ``int`` subclass)
    whose printed form cannot be rebuilt as a Python value, so its counterexample cannot be replayed."""
    tree = ast.parse(prompt)
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry_point), None)
    if fn is None:
        raise DatasetError(f"prompt has no function {entry_point}")
    out = []
    for i, a in enumerate(fn.args.args):
        column = [args[i] for args in inputs or [] if isinstance(args, list) and i < len(args)]
        if a.annotation is not None:
            text = ast.unparse(a.annotation)
            if text in _REFINED and ("List" in text or text.startswith("list")):
                lists = [v for v in column if isinstance(v, list)] + ([_SCALARS] if text in _ANY else [])
                inferred = infer_type_of_all(lists) if lists else "list"
                text = inferred if inferred.startswith("list[") and "Any" not in inferred else text
            elif text in _REFINED and column:
                inferred = infer_type_of_all(column + (_SCALARS if text in _ANY else []))
                text = inferred if "Any" not in inferred else text
            out.append((a.arg, text))
        elif column:
            out.append((a.arg, infer_type_of_all(column)))
        else:
            out.append((a.arg, "Any"))
    return tuple(out)


def _reference(base: dict[str, Any], plus: dict[str, Any]) -> str:
    """The trusted reference of a task: HumanEval+'s canonical solution (EvalPlus's ground truth, which fixes
    HumanEval's, e.g. HumanEval/124's operator-precedence bug that rejects every day above 29, HumanEval/22's
    bools kept as integers, and slow ones such as HumanEval/39), or HumanEval's when HumanEval+ has none."""
    if plus.get("canonical_solution"):
        return str(plus.get("prompt") or base["prompt"]) + str(plus["canonical_solution"])
    return str(base["prompt"]) + str(base["canonical_solution"])


def spec_file_stem(task_id: str) -> str:
    """``HumanEval/57`` -> ``HumanEval_57`` (file names of a spec set: ``STEM.req`` and ``STEM_helpers.py``)."""
    return task_id.replace("/", "_")


def _attach_spec(task: Task, specs_dir: Path | None) -> Task:
    if specs_dir is None:
        return task
    req = specs_dir / f"{spec_file_stem(task.task_id)}.req"
    if not req.is_file():
        return task
    helpers = specs_dir / f"{spec_file_stem(task.task_id)}_helpers.py"
    return replace(task, spec_path=str(req), spec_text=req.read_text(encoding="utf-8"),
                   spec_helpers=helpers.read_text(encoding="utf-8") if helpers.is_file() else "")


def load_tasks(data_dir: Path, task_ids: Iterable[str] | None = None,
               specs_dir: Path | None = None, oracle_inputs: bool = False) -> dict[str, Task]:
    """HumanEval tasks with HumanEval+ ground-truth inputs, tolerance and contract.

    Args:
        data_dir: the ``shared/data`` folder (holding ``humaneval/`` and ``humanevalplus/``).
        task_ids: keep only these (None: all 164).
        specs_dir: a folder of property specs (``HumanEval_N.req`` and optional ``HumanEval_N_helpers.py``)
            attached to the tasks that have one.
        oracle_inputs: infer the parameter types from HumanEval+'s ``base_input + plus_input`` (the oracle's
            inputs: a run with it is reported apart as "oracle inputs") instead of ``base_input`` only.

    Returns:
        ``task_id -> Task``, in benchmark order.

    Raises:
        DatasetError: a file is missing or a task ID is unknown.
    """
    base = {r["task_id"]: r for r in _read_jsonl_gz(data_dir / "humaneval" / "HumanEval.jsonl.gz")}
    plus = {r["task_id"]: r for r in _read_jsonl_gz(data_dir / "humanevalplus" / "HumanEvalPlus.jsonl.gz")}
    wanted = list(task_ids) if task_ids is not None else list(base)
    out: dict[str, Task] = {}
    for tid in wanted:
        if tid not in base:
            raise DatasetError(f"unknown HumanEval task {tid!r}")
        b, p = base[tid], plus.get(tid, {})
        visible = list(p.get("base_input", []))
        inputs = visible + list(p.get("plus_input", []))
        out[tid] = _attach_spec(Task(
            task_id=tid, entry_point=b["entry_point"], prose=docstring_of(b["prompt"], b["entry_point"]),
            prompt=b["prompt"], reference=_reference(b, p),
            tests=b["test"],
            ground_truth_inputs=json.dumps(inputs) if inputs else "", atol=float(p.get("atol", 0) or 0),
            contract=strip_contract_marker(p.get("contract", "")),
            param_types=_param_types(b["prompt"], b["entry_point"], inputs if oracle_inputs else visible),
            base_inputs=json.dumps(visible) if visible else "",
        ), specs_dir)
    return out


def _runs_files(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.glob("*.jsonl*") if p.is_file() and p.name.endswith((".jsonl", ".jsonl.gz")))
    if not files:
        raise DatasetError(f"{folder}: no runs files (*.jsonl or *.jsonl.gz) found (is the data folder right? "
                           "see its SOURCE.txt)")
    return files


def _read_runs(path: Path) -> list[dict[str, Any]]:
    if path.name.endswith(".gz"):
        return _read_jsonl_gz(path)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _model_of(row: dict[str, Any], path: Path) -> str:
    """The row's ``model``, else the model in a ``humaneval_<model>_runs.jsonl[.gz]`` file name."""
    if row.get("model"):
        return str(row["model"])
    stem = path.name.split(".jsonl")[0]
    return stem.removeprefix("humaneval_").removesuffix("_runs") or stem


def llm_run_candidates(data_dir: Path, tasks: dict[str, Task]) -> list[Candidate]:
    """The labelled LLM runs of every runs file in ``llm-runs/`` for the given tasks.

    Each file (``*.jsonl`` or ``*.jsonl.gz``, e.g. ``humaneval_gpt-3.5-turbo_runs.jsonl.gz``) holds one run per
    line; the candidate's source is the row's ``model`` (or the model named by the file), so runs of several
    models stay apart. Candidate IDs are ``TASK#runN`` when the folder holds one model and ``TASK#MODEL#runN``
    when it holds several. The recorded labels (``recheck_passed_humaneval_tests``, ``recheck_humanevalplus``)
    are kept as information only; evalgap computes its own verdicts.

    Raises:
        DatasetError: no runs file in the folder, or a malformed one.
    """
    rows: list[tuple[dict[str, Any], str]] = []
    for path in _runs_files(data_dir / "llm-runs"):
        try:
            rows += [(r, _model_of(r, path)) for r in _read_runs(path)]
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise DatasetError(f"{path}: not a JSON-lines runs file ({exc})") from exc
    several = len({m for _, m in rows}) > 1
    out = []
    for r, model in rows:
        if r.get("task_id") not in tasks or "code" not in r:
            continue
        run = 1 if r.get("run") in (None, "None") else int(r["run"])
        plus = (r.get("recheck_humanevalplus") or {}).get("status", "none")
        labels = (("recheck_passed_humaneval_tests", str(r.get("recheck_passed_humaneval_tests"))),
                  ("recheck_humanevalplus", str(plus)))
        cid = f"{r['task_id']}#{model}#run{run}" if several else f"{r['task_id']}#run{run}"
        out.append(Candidate(cid, r["task_id"], model, r["code"], run, labels))
    return out


def _cut_visible_check(program: str) -> str:
    lines = program.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("def check("):
            return "\n".join(lines[:i]).rstrip() + "\n"
    return program


def humanevalfix_candidates(data_dir: Path, tasks: dict[str, Task], fixed: bool = True) -> list[Candidate]:
    """HumanEvalFix buggy programs (and, with ``fixed``, the fixed ones) for the given tasks."""
    rows = _read_jsonl_gz(data_dir / "humanevalfix-python" / "humanevalfix_python_pairs.jsonl.gz")
    out = []
    for r in rows:
        if r["task_id"] not in tasks:
            continue
        out.append(Candidate(f"{r['task_id']}#buggy", r["task_id"], "humanevalfix-buggy",
                             _cut_visible_check(r["buggy_program_with_visible_check"]),
                             labels=(("humanevalfix", "buggy"),)))
        if fixed:
            out.append(Candidate(f"{r['task_id']}#fixed", r["task_id"], "humanevalfix-fixed", r["fixed_program"],
                                 labels=(("humanevalfix", "fixed"),)))
    return out


def canonical_candidates(tasks: dict[str, Task]) -> list[Candidate]:
    """The canonical solution of each task as a candidate (a sanity check: every evaluator must accept it)."""
    return [Candidate(f"{t.task_id}#canonical", t.task_id, "canonical", t.reference) for t in tasks.values()]


def build_dataset(adapter: str, data_dir: Path, task_ids: Iterable[str] | None = None,
                  specs_dir: Path | None = None, oracle_inputs: bool = False) -> Dataset:
    """Build a dataset with one of :data:`ADAPTERS` from the ``shared/data`` folder.

    Args:
        adapter: ``humaneval`` (canonical solutions only), ``llm-runs`` (every runs file), ``humanevalfix``
            (buggy and fixed pairs), ``humaneval-all`` (all three).
        data_dir: the data folder.
        task_ids: restrict to these tasks (None: all).

    Raises:
        DatasetError: unknown adapter or missing files.
    """
    if adapter not in ADAPTERS:
        raise DatasetError(f"unknown adapter {adapter!r}; known: {', '.join(ADAPTERS)}")
    tasks = load_tasks(data_dir, task_ids, specs_dir, oracle_inputs)
    cands: list[Candidate] = []
    if adapter in ("humaneval", "humaneval-all"):
        cands += canonical_candidates(tasks)
    if adapter in ("llm-runs", "humaneval-all"):
        cands += llm_run_candidates(data_dir, tasks)
    if adapter in ("humanevalfix", "humaneval-all"):
        cands += humanevalfix_candidates(data_dir, tasks)
    return Dataset(adapter, tuple(tasks.values()), tuple(cands), str(data_dir))
