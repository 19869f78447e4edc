"""The ``nl2postcond-mutants`` adapter of ``evalgap compare nl2postcond-mutants:DATA_DIR``: the HumanEval code
mutants shipped with nl2postcond (Endres et al., FSE 2024; MIT, the EvalPlus-derived folder Apache-2.0) as
candidates of the HumanEval tasks.

Source: ``DATA_DIR/nl2postcond/merged_codes_preprocessed.jsonl.zip`` (one JSON line per program: ``task_id``,
``response_num``, ``compiles``, ``is_duplicate``, ``solution``): 300 GPT-3.5 programs per HumanEval task,
responses 0-199 from the standard code-generation prompt ("natural"), 200-299 from a prompt asking for a
buggy program ("artificial" mutants; see ``code_mutants_README.md``). Whether each program is right is not
in the data (nl2postcond's ``eval_results_merged_codes.jsonl`` is not in the snapshot): the ground truth
here is evalgap's own (HumanEval+ inputs against the canonical solution, via
:func:`evalgap.research.humaneval.load_tasks`).

Candidates: ``HumanEval/N#nl2p-R`` for each response ``R`` that compiles and is not an exact duplicate of an
earlier response (nl2postcond's own ``is_duplicate.ExactMatch`` flag), source ``nl2postcond-natural`` or
``nl2postcond-mutant``, labels ``nl2postcond: natural|mutant`` and ``response_num``; plus the canonical
solution (``HumanEval/N#canonical``, source ``canonical``, label ``nl2postcond: original``).
"""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path
from typing import Iterable

from evalgap.research.dataset import Candidate, Dataset
from evalgap.research.errors import DatasetError
from evalgap.research.humaneval import canonical_candidates, load_tasks

__all__ = ["build_nl2postcond_mutants", "MUTANT_FROM"]

#: responses from this number on come from the "include a bug" prompt (code_mutants_README.md).
MUTANT_FROM = 200
_ZIP = "merged_codes_preprocessed.jsonl.zip"


def _exact_duplicate(flag: object) -> bool:
    if isinstance(flag, dict):
        return flag.get("ExactMatch") is not None
    try:
        value = ast.literal_eval(str(flag))
    except (ValueError, SyntaxError):
        return False
    return isinstance(value, dict) and value.get("ExactMatch") is not None


def build_nl2postcond_mutants(data_dir: Path, task_ids: Iterable[str] | None = None,
                              specs_dir: Path | None = None) -> Dataset:
    """The HumanEval tasks with nl2postcond's code mutants (and the canonical solutions) as candidates.

    Args:
        data_dir: the ``shared/data`` folder (``humaneval/``, ``humanevalplus/``, ``nl2postcond/``).
        task_ids: keep only these tasks (None: all 164).
        specs_dir: property specs attached to the tasks (as for the HumanEval adapters).

    Returns:
        The dataset; its ``origin`` says how many responses were left out (not compiling, exact duplicates).

    Raises:
        DatasetError: a file is missing or a task ID is unknown.
    """
    tasks = load_tasks(data_dir, task_ids, specs_dir)
    path = data_dir / "nl2postcond" / _ZIP
    if not path.is_file():
        raise DatasetError(f"{path} not found (is the data folder right? see nl2postcond/SOURCE.txt)")
    cands: list[Candidate] = [Candidate(c.candidate_id, c.task_id, c.source, c.code,
                                        labels=(("nl2postcond", "original"),)) for c in canonical_candidates(tasks)]
    not_compiling = duplicates = 0
    with zipfile.ZipFile(path) as zf, zf.open(_ZIP.removesuffix(".zip")) as fh:
        for line in fh:
            r = json.loads(line)
            tid = r["task_id"]
            if tid not in tasks:
                continue
            if str(r.get("compiles")) != "True":
                not_compiling += 1
                continue
            if _exact_duplicate(r.get("is_duplicate")):
                duplicates += 1
                continue
            num = int(r["response_num"])
            kind = "mutant" if num >= MUTANT_FROM else "natural"
            cands.append(Candidate(f"{tid}#nl2p-{num}", tid, f"nl2postcond-{kind}", r["solution"], num,
                                   (("nl2postcond", kind), ("response_num", str(num)))))
    origin = (f"{path} ({not_compiling} responses not compiling and {duplicates} exact duplicates left out)")
    return Dataset("nl2postcond-mutants", tuple(tasks.values()), tuple(cands), origin)
