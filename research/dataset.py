"""The dataset model of ``evalgap compare``: tasks and candidate programs as frozen records, and their JSONL form.

A dataset is a JSONL file (or a folder holding ``dataset.jsonl``) with one object per line, each either
``{"kind": "task", ...}`` (the fields of :class:`Task`) or ``{"kind": "candidate", ...}`` (the fields of
:class:`Candidate`). Adapters (:mod:`evalgap.research.humaneval`) build the same records from public benchmarks.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from evalgap.research.errors import DatasetError

__all__ = ["Task", "Candidate", "Dataset", "load_dataset", "save_dataset", "code_digest"]


def code_digest(code: str) -> str:
    """SHA-256 (hex, 16 chars) of a program's text with trailing whitespace of each line removed.

    Two candidates with the same digest are the same program: evaluated once (dedupe, content cache).
    """
    norm = "\n".join(line.rstrip() for line in code.strip().splitlines())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Task:
    """One benchmark task.

    Attributes:
        task_id: the benchmark's ID (``HumanEval/0``).
        entry_point: the function under evaluation.
        prose: the natural-language requirement (the prompt's docstring, or the whole prompt).
        prompt: the benchmark's prompt (signature and docstring).
        reference: a trusted reference program (the canonical solution, as a full module), or ''.
        tests: the benchmark's own tests: Python source defining ``check(candidate)``.
        ground_truth_inputs: JSON text of a list of argument lists on which a candidate must agree with
            ``reference`` (HumanEval+ ``base_input + plus_input``); '' when the task has none. Only the
            ground-truth evaluator (and ``spec-inputs``, reported as using oracle inputs) may read them.
        base_inputs: JSON text of the benchmark's own visible inputs (HumanEval+ ``base_input``: the inputs of
            the original tests); what strategies, type inference and input domains may be derived from;
            '' when the task has none.
        atol: absolute float tolerance of the ground-truth comparison (HumanEval+ ``atol``; 0 = exact
            up to a relative 1e-7 on floats, EvalPlus's rule).
        contract: the benchmark's input-validity asserts (HumanEval+ ``contract``), Python statements over
            the parameters; '' when none.
        spec_path: a ``.req`` property spec for the task, or ''.
        spec_text: that spec's text, or ''.
        spec_helpers: Python source of the spec's pure helper functions (read by the spec beside the code
            under check; e.g. imported Nagini ``@Pure`` functions), or ''.
        param_types: ``(name, type text)`` of the entry point's parameters (annotations; a bare ``list``,
            ``Any``, ``List[Any]`` or missing one inferred from all ground-truth inputs by the HumanEval adapter).
    """

    task_id: str
    entry_point: str
    prose: str
    prompt: str = ""
    reference: str = ""
    tests: str = ""
    ground_truth_inputs: str = ""
    atol: float = 0.0
    contract: str = ""
    spec_path: str = ""
    spec_text: str = ""
    spec_helpers: str = ""
    param_types: tuple[tuple[str, str], ...] = ()
    base_inputs: str = ""

    def inputs(self) -> list[list[Any]]:
        """The ground-truth inputs as Python values (a list of argument lists); [] when none."""
        return list(json.loads(self.ground_truth_inputs)) if self.ground_truth_inputs else []

    def visible_inputs(self) -> list[list[Any]]:
        """The benchmark's visible (base) inputs as Python values; [] when none."""
        return list(json.loads(self.base_inputs)) if self.base_inputs else []


@dataclass(frozen=True)
class Candidate:
    """One candidate program for a task.

    Attributes:
        candidate_id: unique within the dataset (``HumanEval/10#run3``).
        task_id: the task it answers.
        source: where it comes from (a model name, ``humanevalfix-buggy``, ``canonical``).
        code: the full program (a module defining the task's entry point).
        run: the run number within its source, when the source has several runs (else None).
        labels: labels given with the data (e.g. ``{"recheck_humanevalplus": "fail"}``); information only,
            never used as a verdict.
    """

    candidate_id: str
    task_id: str
    source: str
    code: str
    run: int | None = None
    labels: tuple[tuple[str, str], ...] = ()

    @property
    def digest(self) -> str:
        """The content digest of ``code`` (see :func:`code_digest`)."""
        return code_digest(self.code)


@dataclass(frozen=True)
class Dataset:
    """Tasks and their candidates.

    Attributes:
        name: a short name (used in reports).
        tasks: the tasks, in order.
        candidates: the candidates, in order.
        origin: where it was read from (paths), for the report.
    """

    name: str
    tasks: tuple[Task, ...]
    candidates: tuple[Candidate, ...]
    origin: str = ""
    _index: dict[str, Task] = field(default_factory=dict, compare=False, repr=False)

    def task(self, task_id: str) -> Task:
        """The task with ``task_id``; raises :class:`DatasetError` if the dataset has none."""
        if not self._index:
            self._index.update({t.task_id: t for t in self.tasks})
        try:
            return self._index[task_id]
        except KeyError:
            raise DatasetError(f"dataset {self.name}: no task {task_id!r}") from None


def _task_from(obj: dict[str, Any]) -> Task:
    obj = {k: v for k, v in obj.items() if k != "kind"}
    obj["param_types"] = tuple(tuple(p) for p in obj.get("param_types", ()))
    if isinstance(obj.get("ground_truth_inputs"), list):
        obj["ground_truth_inputs"] = json.dumps(obj["ground_truth_inputs"])
    if isinstance(obj.get("base_inputs"), list):
        obj["base_inputs"] = json.dumps(obj["base_inputs"])
    return Task(**obj)


def _candidate_from(obj: dict[str, Any]) -> Candidate:
    obj = {k: v for k, v in obj.items() if k != "kind"}
    obj["labels"] = tuple(tuple(p) for p in obj.get("labels", ()))
    return Candidate(**obj)


def load_dataset(path: Path) -> Dataset:
    """Read a dataset JSONL (or a folder holding ``dataset.jsonl``).

    Args:
        path: the file or folder.

    Returns:
        The :class:`Dataset`, named after the file's stem (or the folder's name).

    Raises:
        DatasetError: missing file, a line that is not JSON, an unknown ``kind`` or unknown fields (with the
            line number), or a candidate whose task is not in the file.
    """
    file = path / "dataset.jsonl" if path.is_dir() else path
    if not file.is_file():
        raise DatasetError(f"dataset {path} not found (give a .jsonl file or a folder with dataset.jsonl)")
    tasks: list[Task] = []
    cands: list[Candidate] = []
    for no, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            kind = obj.get("kind")
            if kind == "task":
                tasks.append(_task_from(obj))
            elif kind == "candidate":
                cands.append(_candidate_from(obj))
            else:
                raise DatasetError(f"{file}:{no}: kind must be 'task' or 'candidate', not {kind!r}")
        except (ValueError, TypeError, AttributeError) as exc:
            raise DatasetError(f"{file}:{no}: {exc}") from None
    known = {t.task_id for t in tasks}
    for c in cands:
        if c.task_id not in known:
            raise DatasetError(f"{file}: candidate {c.candidate_id} names unknown task {c.task_id!r}")
    name = path.name if path.is_dir() else path.stem
    return Dataset(name, tuple(tasks), tuple(cands), str(file))


def save_dataset(ds: Dataset, path: Path) -> None:
    """Write ``ds`` as JSONL to ``path`` (tasks first, then candidates)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for rec in _records(ds):
            fh.write(json.dumps(rec) + "\n")


def _records(ds: Dataset) -> Iterable[dict[str, Any]]:
    for t in ds.tasks:
        yield {"kind": "task", **asdict(t)}
    for c in ds.candidates:
        yield {"kind": "candidate", **asdict(c)}
