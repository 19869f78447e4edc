"""``evalgap import icontract|deal|pep316 SRC -o OUT``: contracts written in Python modules into ``.req`` files.

``SRC`` is one ``.py`` module or a folder (its ``.py`` files, recursively, in name order). Each module with
contracts becomes ``OUT/<module stem>.req`` (target: the module, relative to ``OUT``), rendered by
:func:`evalgap.research.import_pycommon.render_module_spec`. ``OUT/IMPORT_REPORT.md`` lists every module,
the requirements imported, and every contract that did not translate (it is in the ``.req`` as an
``informal omission`` requirement, with the reason, and in the report as not imported).
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
    for f in files:
        try:
            mod = read(f)
        except ResearchError as exc:
            skipped.append((f.name, str(exc)))
            continue
        if not mod.functions and not mod.classes:
            empty.append(f.name)
            continue
        res = import_python_file(f, out, fmt, mod)
        results.append(res)
        imported.append((f.name, _count(res, "requires"),
                         _count(res, "ensures") + _count(res, "invariant") + _count(res, "raises")))
        skipped += [(f"{f.name}:{line} {rid}", why) for rid, line, why in res.spec.informal]
    lines = [f"# Import report: {fmt} from {src.name}", "",
             f"{len(results)} module(s) imported: {sum(len(r.spec.formal) for r in results)} requirement(s) "
             f"translated, {sum(len(r.spec.informal) for r in results)} not translated (kept as informal "
             "omission requirements).", "", "## Not translated", "",
             *(f"* {name}: {why}" for name, why in skipped), "", "## Imported", "",
             *(f"* {r.module} -> {Path(r.out).name}: {', '.join(r.spec.formal) or 'none'}" for r in results),
             "", "## No contracts found", "", *(f"* {name}" for name in empty), ""]
    (out / "IMPORT_REPORT.md").write_text("\n".join(lines), encoding="utf-8")
    return ImportReport(tuple(imported), tuple(skipped))
