"""Load a spec file together with the files it imports (``import "other.req"``).

Requirements, declarations and helpers of every imported file are merged into one :class:`Spec` whose
name, title and target are the root file's; spans keep each requirement's own file. Requirement IDs must be
unique across all files (EG201, reported by the checks); a missing file or an import cycle is EG220.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.errors import Diagnostic, SpecError, SpecNameError
from evalgap.specs_lang.parser import parse
from evalgap.specs_lang.diagnostics import BAD_IMPORT
from evalgap.specs_lang.textfile import MAX_SPEC_BYTES, read_text

__all__ = ["LoadedSpec", "load_spec"]

_MERGED = ("requirements", "functions", "classes", "assumptions", "lets", "defs", "records", "configs", "stubs")


class LoadedSpec:
    """A spec with its imports merged.

    Attributes:
        spec: the merged :class:`Spec` (root file's name, title, target and file).
        sources: file name (as used in spans) -> text, for every file read.
        files: the files read, root first.
    """

    def __init__(self, spec: A.Spec, sources: dict[str, str], files: list[str]) -> None:
        self.spec, self.sources, self.files = spec, sources, files


def _import_span(file: str, text: str, target: str) -> A.Span:
    for i, line in enumerate(text.splitlines(), 1):
        m = re.search(r"\bimport\s+([\"'])" + re.escape(target) + r"\1", line)
        if m:
            return A.Span(file, i, m.start(1) + 1, i, m.end() + 1)
    return A.Span(file, 1, 1, 1, 2)


def load_spec(path: str | Path, text: str | None = None) -> LoadedSpec:
    """Parse ``path`` and, recursively, every file it imports (paths relative to the importing file).

    Args:
        path: the root ``.req`` file, or with ``text`` the name the root is shown under (``<stdin>``; its
            imports are then relative to the current folder).
        text: the root's text when it is not read from ``path`` (a spec on standard input).

    Returns:
        A :class:`LoadedSpec`.

    Raises:
        SpecSyntaxError: a file does not parse (or cannot be read: EG100).
        SpecNameError: an imported file is missing or the imports form a cycle (EG220).
    """
    sources: dict[str, str] = {}
    files: list[str] = []
    parts: list[A.Spec] = []

    def visit(p: Path, display: str, stack: tuple[Path, ...], span: A.Span | None) -> None:
        key = p.resolve()
        if key in stack:
            chain = " -> ".join(s.name for s in stack + (key,))
            raise SpecNameError([Diagnostic(BAD_IMPORT, span or A.Span(display), f"import cycle: {chain}",
                                            "remove one of the imports")], sources)
        if display in sources:
            return
        if not (p == root and text is not None) and not p.exists():
            raise SpecNameError([Diagnostic(BAD_IMPORT, span or A.Span(display), f"imported spec {display} not found",
                                            "imports are relative to the importing file")], sources)
        body = text if p == root and text is not None else read_text(p, "spec", MAX_SPEC_BYTES)
        sources[display] = body
        files.append(display)
        spec = parse(body, display)
        parts.append(spec)
        for imp in spec.imports:
            child = p.parent / imp
            visit(child, str(child) if display != str(p) else str(child), stack + (key,),
                  _import_span(display, body, imp))

    root = Path(path)
    if text is None:
        read_text(root, "spec", MAX_SPEC_BYTES)  # EG100/EG107 for the root itself, before the import walk
    try:
        visit(root, str(path), (), None)
    except SpecError as exc:
        exc.sources.update({k: v for k, v in sources.items() if k not in exc.sources})
        raise
    merged = parts[0]
    for extra in parts[1:]:
        merged = replace(merged, **{f: getattr(merged, f) + getattr(extra, f) for f in _MERGED})
    return LoadedSpec(merged, sources, files)
