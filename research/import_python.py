"""``evalgap import icontract|deal|pep316 SRC -o OUT``: contracts written in Python modules into ``.req`` files.

``SRC`` is one ``.py`` module or a folder (its ``.py`` files, recursively, in name order). Each module with
contracts becomes ``OUT/<module stem>.req`` (target: the module, relative to ``OUT``), rendered by
:func:`evalgap.research.import_pycommon.render_module_spec`. ``OUT/IMPORT_REPORT.md`` lists every module,
the requirements imported, and every contract that did not translate (it is in the ``.req`` as an
``informal omission`` requirement, with the reason, and in the report as not imported). A module that cannot
be read is listed with the reason and the import goes on with the next one; ``## Files`` gives every file's
outcome.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from evalgap.research.errors import DatasetError
from evalgap.research.import_pycommon import ModuleContracts, PyImportResult, import_python_file

if TYPE_CHECKING:
    from evalgap.research.importing import ImportReport

__all__ = ["PY_FORMATS", "import_python"]


def _readers() -> dict[str, Callable[[Path], ModuleContracts]]:
    from evalgap.research.import_deal import read_deal
    from evalgap.research.import_icontract import read_icontract
    from evalgap.research.import_pep316 import read_pep316

    return {"icontract": read_icontract, "deal": read_deal, "pep316": read_pep316}


#: the formats this module imports.
PY_FORMATS = ("icontract", "deal", "pep316")


def _count(res: PyImportResult, kind: str) -> int:
    return sum(1 for line in res.spec.text.splitlines() if line.strip().startswith(kind + " "))


def _stem(f: Path, src: Path, files: list[Path]) -> str:
    """``f``'s output stem: its file stem, or its path under ``src`` when another module has the same stem
    (``bugs_detected/showcase.py`` -> ``bugs_detected_showcase``)."""
    if sum(1 for g in files if g.stem == f.stem) < 2:
        return f.stem
    return "_".join(f.relative_to(src).with_suffix("").parts)


def import_python(fmt: str, src: Path, out: Path) -> ImportReport:
    """Import the ``fmt`` contracts of the module(s) at ``src`` into ``out``.

    Returns:
        An :class:`~evalgap.research.importing.ImportReport`: ``imported`` holds ``(module, requires, ensures)``
        per module written (``ensures`` counts postconditions, invariants and ``raises`` clauses together),
        ``skipped`` holds ``(module:line requirement ID, reason)`` per contract that did not translate.

    Raises:
        DatasetError: unknown format, or ``src`` missing or not Python.
    """
    from evalgap.research.errors import ResearchError
    from evalgap.research.importing import ImportReport

    if fmt not in PY_FORMATS:
        raise DatasetError(f"unknown Python contract format {fmt!r}; known: {', '.join(PY_FORMATS)}")
    if not src.exists():
        raise DatasetError(f"{src} does not exist")
    files = [src] if src.is_file() else sorted(p for p in src.rglob("*.py") if p.is_file())
    read = _readers()[fmt]
    out.mkdir(parents=True, exist_ok=True)
    imported: list[tuple[str, int, int]] = []
    skipped: list[tuple[str, str]] = []
    empty: list[str] = []
    results: list[PyImportResult] = []
    outcomes: list[str] = []
    for f in files:
        shown = f.name if src.is_file() else str(f.relative_to(src))
        try:
            mod = read(f)
            if not mod.functions and not mod.classes:
                empty.append(f.name)
                outcomes.append(f"* {shown}: no contracts found")
                continue
            res = import_python_file(f, out, fmt, mod, _stem(f, src, files))
        except ResearchError as exc:  # this file only: the folder import goes on
            skipped.append((f.name, str(exc)))
            outcomes.append(f"* {shown}: not imported: {exc}")
            continue
        results.append(res)
        outcomes.append(f"* {shown}: {Path(res.out).name}, {len(res.spec.formal)} requirement(s) translated, "
                        f"{len(res.spec.informal)} informal")
        imported.append((f.name, _count(res, "requires"),
                         _count(res, "ensures") + _count(res, "invariant") + _count(res, "raises")))
        skipped += [(f"{f.name}:{line} {rid}", why) for rid, line, why in res.spec.informal]
    lines = [f"# Import report: {fmt} from {src.name}", "",
             f"{len(results)} module(s) imported: {sum(len(r.spec.formal) for r in results)} requirement(s) "
             f"translated, {sum(len(r.spec.informal) for r in results)} not translated (kept as informal "
             "omission requirements).", "", "## Files", "", *outcomes, "", "## Not translated", "",
             *(f"* {name}: {why}" for name, why in skipped), "", "## Imported", "",
             *(f"* {r.module} -> {Path(r.out).name}: {', '.join(r.spec.formal) or 'none'}" for r in results),
             "", "## No contracts found", "", *(f"* {name}" for name in empty), ""]
    (out / "IMPORT_REPORT.md").write_text("\n".join(lines), encoding="utf-8")
    return ImportReport(tuple(imported), tuple(skipped))
