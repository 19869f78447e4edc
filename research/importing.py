"""The logic of ``evalgap import``: translate a folder of contracts in an existing format into ``.req`` files.

Formats: ``nagini`` (HumanEval-Nagini ``Bench/NNN-name.py``, see :mod:`evalgap.research.import_nagini`),
``nl2postcond`` (the folder or ``.jsonl.gz`` of nl2postcond's GPT-4 postconditions, see
:mod:`evalgap.research.import_nl2postcond`); ``icontract``, ``deal``, ``pep316`` (contracts in Python modules,
see :mod:`evalgap.research.import_python`; no ``--data`` needed).
Output folder: ``HumanEval_N.req`` (+ ``HumanEval_N_helpers.py`` for pure helpers) per imported task and
``IMPORT_REPORT.md`` listing every source file, imported or not, with the reason.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from evalgap.research.errors import DatasetError
from evalgap.research.dataset import Task
from evalgap.research.humaneval import load_tasks, spec_file_stem
from evalgap.research.import_nagini import Imported, NaginiImportError, import_nagini
from evalgap.verifier.sandbox.scratch import scratch_dir

__all__ = ["ImportReport", "import_folder", "FORMATS"]

FORMATS = ("nagini", "nl2postcond", "icontract", "deal", "pep316")


@dataclass(frozen=True)
class ImportReport:
    """What an import did.

    Attributes:
        imported: ``(task_id, requires, ensures)`` per imported task.
        skipped: ``(source file name, reason)`` per file not imported.
    """

    imported: tuple[tuple[str, int, int], ...]
    skipped: tuple[tuple[str, str], ...]


def import_folder(fmt: str, src: Path, data_dir: Path | None, out: Path) -> ImportReport:
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
    if not src.exists():
        raise DatasetError(f"{src} does not exist")
    if src.is_file() and fmt == "nagini":
        raise DatasetError(f"{src} is a file: `import nagini` reads a folder of HumanEval-Nagini programs "
                           "(`NNN_name.py` files, e.g. Bench/); give that folder")
    if src.is_file() and fmt in ("icontract", "deal", "pep316") and src.suffix != ".py":
        raise DatasetError(f"{src} is not a Python file: `import {fmt}` reads a .py module or a folder of them")
    if not src.is_file() and not src.is_dir():
        raise DatasetError(f"{src} is neither a file nor a folder")
    if fmt == "nl2postcond":
        gz = src / "gpt4_simple_with_ref_postconditions.jsonl.gz" if src.is_dir() else src
        with open(gz, "rb") if gz.is_file() else open(os.devnull, "rb") as fh:
            if fh.read(2) != b"\x1f\x8b":
                raise DatasetError(f"{gz}: not a gzipped JSON-lines nl2postcond file (give the .jsonl.gz file or "
                                   "its folder)")
    if fmt in ("icontract", "deal", "pep316"):  # Python modules: see evalgap.research.import_python
        from evalgap.research.import_python import import_python

        return import_python(fmt, src, out)
    if data_dir is None:
        raise DatasetError(f"import {fmt} needs --data (the benchmark data folder)")
    tasks = load_tasks(data_dir)
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "nl2postcond":
        return _nl2postcond(src, tasks, out)
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
        if imp.retyped and (why := _retyped_problem(imp)):
            # the clauses are about Nagini's encoding (a str as a list of character codes): they do not
            # type-check against HumanEval's signature, or hand its values to helpers written for integer
            # codes, so the spec would be wrong, not merely weak; nothing is written for it
            skipped.append((f.name, f"{imp.retyped[0]}, and the clauses do not fit there: {why}"))
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


def _retyped_problem(imp: Imported) -> str:
    """Why a spec whose parameters Nagini types differently cannot stand for HumanEval's signature, or ''.

    Args:
        imp: the import (its spec text is checked in a temporary folder; the helpers' source is searched for
            the names the clauses call).

    Returns:
        The first type diagnostic (``'EG216 comparing str to int is always False'``), else the helpers the
        clauses call (written for Nagini's integer character codes), else '' (the clauses are generic, e.g.
        ``text[i] == text[len(text) - i - 1]``, and hold for either type).
    """
    from evalgap.specs_lang import SpecError
    from evalgap.verifier.project.speccheck import load_checked

    with scratch_dir("evalgap-import-") as tmp:
        spec_path = Path(tmp) / "spec.req"
        spec_path.write_text(imp.spec_text, encoding="utf-8")
        try:
            load_checked(spec_path, None, strict_target=False)
        except SpecError as exc:
            first = exc.diagnostics[0]
            return f"{first.code} {first.message}"
    body = imp.spec_text.split("\n", 1)[1]
    called = [n for n in re.findall(r"^def (\w+)", imp.helpers, re.M) if re.search(rf"\b{n}\(", body)]
    return f"they call helpers written for integer codes: {', '.join(called)}" if called else ""


def _nl2postcond(src: Path, tasks: dict[str, Task], out: Path) -> ImportReport:
    from evalgap.research.import_nl2postcond import import_nl2postcond

    file = src / "gpt4_simple_with_ref_postconditions.jsonl.gz" if src.is_dir() else src
    if not file.is_file():
        raise DatasetError(f"{file} does not exist (give the nl2postcond .jsonl.gz file or its folder)")
    try:
        imp = import_nl2postcond(file, {t: task.param_types for t, task in tasks.items()})
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:  # gzip.BadGzipFile is an OSError
        raise DatasetError(f"{file}: not a gzipped JSON-lines nl2postcond file ({type(exc).__name__}: {exc})") \
            from None
    for tid, text in imp.specs.items():
        (out / f"{spec_file_stem(tid)}.req").write_text(text, encoding="utf-8")
    imported = tuple((tid, 0, text.count("    ensures ")) for tid, text in sorted(imp.specs.items()))
    skipped = tuple((f"{tid} response {resp}", why) for tid, resp, why in imp.skipped)
    lines = [f"# Import report: nl2postcond from {file.name}", "",
             f"{len(imported)} tasks imported; {len(skipped)} responses not imported.", "", "## Not imported", "",
             *(f"* {name}: {why}" for name, why in skipped), ""]
    (out / "IMPORT_REPORT.md").write_text("\n".join(lines), encoding="utf-8")
    return ImportReport(imported, skipped)
