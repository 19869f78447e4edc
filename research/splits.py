"""The development / frozen-evaluation split of every benchmark ``evalgap compare`` reads.

A figure measured on the programs a spec was written or revised against is a training score. Each task of a
benchmark belongs to exactly one part, fixed before any tuning:

* the part is a pure function of the task ID: ``sha256("evalgap-split-v1:" + task_id)``, whose first byte
  below 128 puts the task in ``dev`` and otherwise in ``eval`` (about half each, independent of the task's
  position, name or difficulty);
* the resulting assignment of every known benchmark is committed in ``research/splits/<benchmark>.json`` (task
  IDs only; no benchmark data), and a test checks that the rule still reproduces it, so the split cannot drift;
* specs are written and revised on ``dev`` only; ``eval`` is run once per reported figure, and both are
  reported (``evalgap compare --part dev|eval``).

Splitting by task also splits by source: every run of every model on an ``eval`` task is in ``eval``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterable

from evalgap.research.errors import DatasetError

__all__ = ["PARTS", "part_of", "split_file", "frozen_split", "tasks_in_part"]

PARTS = ("dev", "eval")
_SALT = "evalgap-split-v1:"
_DIR = Path(__file__).resolve().parent / "splits"


def part_of(task_id: str) -> str:
    """``"dev"`` or ``"eval"``: the part ``task_id`` belongs to under the committed rule (module docstring)."""
    return "dev" if hashlib.sha256((_SALT + task_id).encode("utf-8")).digest()[0] < 128 else "eval"


def split_file(benchmark: str) -> Path:
    """The committed split of ``benchmark`` (``humaneval``, ``mbppplus``, ``quixbugs``): a JSON file."""
    return _DIR / f"{benchmark}.json"


def frozen_split(benchmark: str) -> dict[str, list[str]]:
    """The committed ``{"dev": [...], "eval": [...]}`` task IDs of ``benchmark``.

    Raises:
        DatasetError: no split is committed for ``benchmark``.
    """
    p = split_file(benchmark)
    if not p.is_file():
        known = ", ".join(sorted(f.stem for f in _DIR.glob("*.json")))
        raise DatasetError(f"no committed split for {benchmark!r} (known: {known})")
    data = json.loads(p.read_text(encoding="utf-8"))
    return {k: list(data[k]) for k in PARTS}


def tasks_in_part(task_ids: Iterable[str], part: str) -> list[str]:
    """The IDs among ``task_ids`` in ``part``, in their order; a benchmark with a committed split uses it,
    any other task the rule.

    Raises:
        DatasetError: ``part`` is not ``dev`` or ``eval``.
    """
    if part not in PARTS:
        raise DatasetError(f"--part must be one of {', '.join(PARTS)}, got {part!r}")
    committed: dict[str, str] = {}
    for f in _DIR.glob("*.json"):
        data = json.loads(f.read_text(encoding="utf-8"))
        for k in PARTS:
            committed.update((t, k) for t in data[k])
    return [t for t in task_ids if committed.get(t, part_of(t)) == part]
