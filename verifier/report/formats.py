"""The registry of gap-report formats: ``-f NAME`` picks one, ``-o NAME=PATH`` writes it.

A format is a small object with a ``name``, the file ``extension`` used when ``-o`` names a folder, and
``render(report, color)`` returning the whole document as text. A new format is one module plus one line
in :data:`_BUILTIN`; ``tests/test_format_conformance.py`` renders a fixture report in every registered
format and checks what every format must do (deterministic output, every requirement ID present, the
machine-readable ones parse and validate).
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from evalgap.verifier.report.gap import GapReport

__all__ = ["Format", "LazyFormat", "register", "get", "names"]


class Format(Protocol):
    """What the registry holds (see the module docstring)."""

    @property
    def name(self) -> str:
        """The ``-f`` name."""
        ...

    @property
    def extension(self) -> str:
        """The file extension used for ``-o FOLDER`` (no dot)."""
        ...

    def render(self, report: GapReport, color: bool = False) -> str:
        """The report as one document (``color`` applies to terminal text only)."""
        ...


@dataclass(frozen=True)
class LazyFormat:
    """A format whose renderer, ``module.function(report)`` (plus ``color=`` when ``takes_color``), is
    imported on first use."""

    name: str
    extension: str
    module: str
    function: str
    takes_color: bool = False

    def render(self, report: GapReport, color: bool = False) -> str:
        """Render ``report`` with the named function."""
        fn = getattr(importlib.import_module(self.module), self.function)
        text = fn(report, color=color) if self.takes_color else fn(report)
        assert isinstance(text, str)
        return text


_R = "evalgap.verifier.report"
_BUILTIN: tuple[Format, ...] = (
    LazyFormat("text", "txt", f"{_R}.text", "render_text_string", takes_color=True),
    LazyFormat("json", "json", f"{_R}.json_report", "render_json"),
    LazyFormat("markdown", "md", f"{_R}.markdown", "render_markdown"),
    LazyFormat("sarif", "sarif", f"{_R}.sarif", "render_sarif"),
    LazyFormat("junit", "xml", f"{_R}.junit", "render_junit"),
    LazyFormat("html", "html", f"{_R}.html", "render_html"),
)
_LOCK = threading.Lock()
_FORMATS: dict[str, Format] = {f.name: f for f in _BUILTIN}


def register(fmt: Format) -> Format:
    """Add ``fmt`` (the last registration of a name wins)."""
    with _LOCK:
        _FORMATS[fmt.name] = fmt
    return fmt


def get(name: str) -> Format | None:
    """The format called ``name``, or None."""
    with _LOCK:
        return _FORMATS.get(name)


def names() -> tuple[str, ...]:
    """Every registered format's name, the built-ins first."""
    with _LOCK:
        return tuple(_FORMATS)
