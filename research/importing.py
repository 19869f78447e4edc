"""The logic of ``evalgap import``: translate a folder of contracts in an existing format into ``.req`` files.

Formats: ``nagini`` (HumanEval-Nagini ``Bench/NNN-name.py``, see :mod:`evalgap.research.import_nagini`).
Output folder: ``HumanEval_N.req`` (+ ``HumanEval_N_helpers.py`` for pure helpers) per imported task and
``IMPORT_REPORT.md`` listing every source file, imported or not, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evalgap.research.errors import DatasetError
from evalgap.research.humaneval import load_tasks, spec_file_stem
from evalgap.research.import_nagini import NaginiImportError, import_nagini

__all__ = ["ImportReport", "import_folder", "FORMATS"]

FORMATS = ("nagini",)


@dataclass(frozen=True)
class ImportReport:
    """What an import did.

    Attributes:
        imported: ``(task_id, requires, ensures)`` per imported task.
        skipped: ``(source file name, reason)`` per file not imported.
    """

    imported: tuple[tuple[str, int, int], ...]
    skipped: tuple[tuple[str, str], ...]


def import_folder(fmt: str, src: Path, data_dir: Path, out: Path) -> ImportReport:
    """Import every program of ``src`` in format ``fmt`` into ``out``, checking each spec parses.

    Args:
        fmt: one of :data:`FORMATS`.
        src: the folder of contract programs (HumanEval-Nagini's ``Bench/``).
        data_dir: ``shared/data`` (HumanEval signatures: entry point and parameter names/types).
        out: output folder (created).

    Raises:
        DatasetError: unknown format or missing folder.
    """
    from evalgap.specs_lang import SpecError, check_structure, parse

    if fmt not in FORMATS:
        raise DatasetError(f"unknown import format {fmt!r}; known: {', '.join(FORMATS)}")
    if not src.is_dir():
        raise DatasetError(f"{src} is not a folder")
    tasks = load_tasks(data_dir)
    out.mkdir(parents=True, exist_ok=True)
    imported: list[tuple[str, int, int]] = []
    skipped: list[tuple[str, str]] = []
    for f in sorted(src.glob("*.py")):
        m = re.match(r"(\d+)", f.name)
        tid = f"HumanEval/{int(m.group(1))}" if m else ""
        if tid not in tasks:
            skipped.append((f.name, "no HumanEval task number in the file name"))
            continue
        t = tasks[tid]
        try:
            imp = import_nagini(f.read_text(encoding="utf-8"), tid, t.entry_point, t.param_types)
            check_structure(parse(imp.spec_text, f.name))
        except NaginiImportError as exc:
            skipped.append((f.name, str(exc)))
            continue
        except SpecError as exc:
            skipped.append((f.name, f"translated text is not a valid spec: {str(exc).splitlines()[0]}"))
            continue
        stem = spec_file_stem(tid)
        (out / f"{stem}.req").write_text(imp.spec_text, encoding="utf-8")
        if imp.helpers:
            (out / f"{stem}_helpers.py").write_text("# Pure helpers imported from HumanEval-Nagini (Apache-2.0)\n"
                                                   "from typing import List, Dict, Optional, Tuple\n\n\n"
                                                   + imp.helpers, encoding="utf-8")
        imported.append((tid, imp.requires, imp.ensures))
    lines = [f"# Import report: {fmt} from {src.name}", "",
             f"{len(imported)} imported, {len(skipped)} not imported.", "", "## Not imported", "",
             *(f"* {name}: {why}" for name, why in skipped), "", "## Imported", "",
             *(f"* {tid}: {r} precondition(s), {e} postcondition(s)" for tid, r, e in imported), ""]
    (out / "IMPORT_REPORT.md").write_text("\n".join(lines), encoding="utf-8")
    return ImportReport(tuple(imported), tuple(skipped))
