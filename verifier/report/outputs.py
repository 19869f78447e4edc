"""Which report formats go where: ``--format`` (repeatable) and ``--output`` (repeatable) of ``evalgap check``.

Rules (docs/report.md):

* ``--format FMT`` (repeatable): ``text``, ``json``, ``markdown``, ``sarif``, ``junit``, ``html``.
* ``--output FMT=PATH`` writes that format to ``PATH`` (and implies ``--format FMT``).
* ``--output PATH`` (at most one): with one format left unassigned, that format is written to ``PATH``;
  with several, ``PATH`` is a folder and each goes to ``PATH/<spec>.gap.<ext>``. ``PATH/`` (a trailing
  slash) is always a folder, created (that one level only) when missing. ``-`` (``-o -``, ``FMT=-``) is
  standard output.
* A format with no path goes to standard output; at most one may. With no ``--format`` at all, ``text``
  goes to standard output (even when other formats are written to files by ``FMT=PATH``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from evalgap.verifier.errors import UsageError
from evalgap.verifier.report import formats

if TYPE_CHECKING:
    from evalgap.verifier.report.gap import GapReport

__all__ = ["FORMATS", "EXTENSIONS", "Destination", "plan_outputs", "render"]

#: The registered format names (``-f`` choices) and their file extensions (``-o FOLDER``).
FORMATS = formats.names()
EXTENSIONS = {name: fmt.extension for name in FORMATS if (fmt := formats.get(name)) is not None}


@dataclass(frozen=True)
class Destination:
    """One output: ``fmt`` written to ``path`` (None: standard output)."""

    fmt: str
    path: Path | None
    folder: Path | None = None  # ``-o DIR/``: the folder to create (one level) before writing ``path``


def plan_outputs(formats: tuple[str, ...], outputs: tuple[str, ...], spec_name: str) -> list[Destination]:
    """Resolve ``--format`` and ``--output`` values into destinations (order: as given, stdout last).

    Raises:
        UsageError: an unknown format in ``FMT=PATH``, two plain paths, a format given two paths, or several
            formats left for standard output.
    """
    explicit: dict[str, Path] = {}
    plain: list[Path] = []
    stdout: list[str] = []  # formats sent to standard output by FMT=-
    slash = False
    for out in outputs:
        head, sep, tail = out.partition("=")
        if sep and head in FORMATS:
            if head in explicit:
                raise UsageError(f"--output {out}: {head} already goes to {explicit[head]}")
            if not tail:
                raise UsageError(f"--output {out}: give a path after '='")
            if tail == "-":
                stdout.append(head)
            explicit[head] = Path(tail)
        elif sep and "/" not in head and "." not in head:
            raise UsageError(f"--output {out}: unknown format {head!r}; formats: {', '.join(FORMATS)}")
        else:
            plain.append(Path(out))
            slash = slash or out.endswith(("/", os.sep))
    if len(plain) > 1:
        raise UsageError("--output PATH may be given once (use FMT=PATH for the others, or a folder)")
    wanted = list(dict.fromkeys(formats)) or ([] if stdout else ["text"])
    rest = [f for f in wanted if f not in explicit]
    dests = [Destination(f, p) for f, p in explicit.items() if f not in stdout]
    if plain and str(plain[0]) == "-":  # -o - : the formats left go to standard output
        plain = []
    if plain:
        if not rest:
            raise UsageError(f"--output {plain[0]}: every format already has a path")
        if len(rest) == 1 and not slash:
            dests.append(Destination(rest[0], plain[0]))
        else:
            folder = plain[0] if slash else None
            dests += [Destination(f, plain[0] / f"{spec_name}.gap.{EXTENSIONS[f]}", folder) for f in rest]
        rest = []
    rest += stdout
    if len(rest) > 1:
        raise UsageError(f"formats {', '.join(rest)} would all go to standard output: give --output DIR or "
                         "--output FMT=PATH for all but one")
    dests += [Destination(f, None) for f in rest]
    return dests


def render(report: GapReport, fmt: str, color: bool | None = False) -> str:
    """The report in format ``fmt`` of :mod:`evalgap.verifier.report.formats` (``color`` applies to ``text``).

    Raises:
        UsageError: no format of that name is registered.
    """
    found = formats.get(fmt)
    if found is None:
        raise UsageError(f"unknown format {fmt!r}; formats: {', '.join(formats.names())}")
    return found.render(report, bool(color))
