"""Registry of the adapters of ``evalgap compare ADAPTER:DATA_DIR`` kept outside
:mod:`evalgap.research.humaneval`: ``quixbugs`` (:mod:`~evalgap.research.adapt_quixbugs`), ``mbppplus``
(:mod:`~evalgap.research.adapt_mbppplus`), ``nl2postcond-mutants`` (:mod:`~evalgap.research.adapt_nl2postcond`).

Each builder takes ``(data_dir, task_ids or None, specs_dir or None)`` and returns a
:class:`~evalgap.research.dataset.Dataset`, raising :class:`~evalgap.research.errors.DatasetError` on
missing files or unknown task IDs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from evalgap.research.dataset import Dataset

__all__ = ["MORE_ADAPTERS", "build_more"]

MORE_ADAPTERS = ("quixbugs", "mbppplus", "nl2postcond-mutants")

_Builder = Callable[[Path, "Iterable[str] | None", "Path | None"], Dataset]


def build_more(adapter: str, data_dir: Path, task_ids: Iterable[str] | None = None,
               specs_dir: Path | None = None) -> Dataset:
    """Build a dataset with one of :data:`MORE_ADAPTERS` (raises ``KeyError`` for any other name)."""
    from evalgap.research.adapt_mbppplus import build_mbppplus
    from evalgap.research.adapt_nl2postcond import build_nl2postcond_mutants
    from evalgap.research.adapt_quixbugs import build_quixbugs

    builders: dict[str, _Builder] = {"quixbugs": build_quixbugs, "mbppplus": build_mbppplus,
                                     "nl2postcond-mutants": build_nl2postcond_mutants}
    return builders[adapter](data_dir, task_ids, specs_dir)
