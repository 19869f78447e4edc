"""``evalgap fmt``: rewrite spec files in the canonical layout (see :mod:`evalgap.specs_lang.format`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalgap.verifier.fileio import write_text
from evalgap.specs_lang.format import format_spec
from evalgap.specs_lang.parser import parse, parse_file
from evalgap.verifier.errors import UsageError
from evalgap.specs_lang.textfile import MAX_SPEC_BYTES, read_text

__all__ = ["FmtResult", "format_file", "format_text"]


@dataclass(frozen=True)
class FmtResult:
    """The outcome for one file: ``changed`` (its text differs from the canonical one), ``written``."""

    path: Path
    changed: bool
    written: bool


def format_file(path: Path, check_only: bool) -> FmtResult:
    """Format one ``.req`` file in place (atomically), or only report whether it would change.

    Raises:
        SpecSyntaxError: the file does not parse (it is left untouched).
    """
    if path.is_fifo():  # reading would wait for a writer, and a rewrite would wait for a reader
        raise UsageError(f"{path}: a named pipe, not a regular file; `evalgap fmt` rewrites .req files in place")
    text = read_text(path, "spec", MAX_SPEC_BYTES)  # EG100/EG107 before parsing
    spec = parse_file(path)
    new = format_spec(spec, text)
    if new == text:
        return FmtResult(path, False, False)
    if check_only:
        return FmtResult(path, True, False)
    write_text(path, new)
    return FmtResult(path, True, True)


def format_text(text: str, name: str = "<stdin>") -> str:
    """The canonical layout of spec ``text`` (``evalgap fmt -``: standard input to standard output).

    Args:
        text: the spec's text; name: how diagnostics name it.

    Raises:
        SpecSyntaxError: the text does not parse.
    """
    return format_spec(parse(text, name), text)
