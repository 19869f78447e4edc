"""Errors and diagnostics of the spec language.

Every problem found in a ``.req`` file is a :class:`Diagnostic`: a stable code (``EG1xx`` syntax,
``EG2xx`` names and types), a :class:`~evalgap.specs_lang.ast.Span`, a one-line message and an optional
hint. :class:`SpecError` is the single exception root of :mod:`evalgap.specs_lang`; it carries one or
more diagnostics and renders them the way compilers do::

    kvstore.req:4:12: error EG101: unexpected ')'; expected a name or an expression
        requirement KV-1 "A value ..."
                   ^
    hint: ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from evalgap.specs_lang.ast_expr import Span
from evalgap.specs_lang.diagnostics import REGISTRY, codes_of

__all__ = ["Diagnostic", "SpecError", "SpecSyntaxError", "SpecNameError", "render_diagnostic", "CODES"]

#: Every spec diagnostic code (EG1xx syntax, EG2xx names and types, EG3xx Z3 analysis) with its one-line
#: meaning: a view of :data:`evalgap.specs_lang.diagnostics.REGISTRY`, where codes are added (docs/diagnostics.md).
CODES: dict[str, str] = {code: rec.title for code, rec in codes_of("EG1", "EG2", "EG3").items()}


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a spec file.

    Attributes:
        code: stable code from :data:`CODES` (``EG1xx`` syntax, ``EG2xx`` names and types); use the named
            constants of :mod:`evalgap.specs_lang.diagnostics` (``DUPLICATE_ID``), not literals.
        span: where it is (1-based line and column, end exclusive).
        message: one line saying what is wrong and what was expected.
        hint: an optional one-line suggestion (``did you mean `items`?``).
    """

    code: str
    span: Span
    message: str
    hint: str | None = None


def render_diagnostic(diag: Diagnostic, source: str | None) -> str:
    """Render ``diag`` as ``file:line:col: error CODE: message`` (``warning`` for a code whose registered
    severity is a warning), the source line and a caret range.

    Args:
        diag: the diagnostic.
        source: the whole text of ``diag.span.file``, or None when it is not available (no excerpt).

    Returns:
        A multi-line string without a trailing newline.
    """
    sp = diag.span
    code = REGISTRY.get(diag.code)
    severity = "warning" if code is not None and code.severity == "warning" else "error"
    out = [f"{sp.file}:{sp.line}:{sp.col}: {severity} {diag.code}: {diag.message}"]
    if source is not None:
        lines = source.splitlines()
        if 1 <= sp.line <= len(lines):
            text = lines[sp.line - 1].expandtabs(1)
            out.append("    " + text)
            width = 1
            if sp.end_line == sp.line and sp.end_col > sp.col:
                width = sp.end_col - sp.col
            out.append("    " + " " * (sp.col - 1) + "^" * max(1, width))
    if diag.hint:
        out.append(f"hint: {diag.hint}")
    return "\n".join(out)


@dataclass(frozen=True)
class _Payload:
    diagnostics: tuple[Diagnostic, ...]
    sources: dict[str, str] = field(default_factory=dict)


class SpecError(ValueError):
    """Root of every error :mod:`evalgap.specs_lang` raises for bad spec input.

    Attributes:
        diagnostics: one or more :class:`Diagnostic` (all problems of a file found in one pass).
        sources: file name -> text, used to print the offending lines.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic], sources: dict[str, str] | None = None) -> None:
        if not diagnostics:
            raise ValueError("SpecError needs at least one diagnostic")
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        self.sources: dict[str, str] = dict(sources or {})
        super().__init__(self.render())

    @property
    def span(self) -> Span:
        """The span of the first diagnostic."""
        return self.diagnostics[0].span

    def render(self) -> str:
        """All diagnostics, rendered with their source excerpts, separated by blank lines."""
        return "\n\n".join(render_diagnostic(d, self.sources.get(d.span.file)) for d in self.diagnostics)


class SpecSyntaxError(SpecError):
    """The text does not fit the grammar (codes EG1xx)."""


class SpecNameError(SpecError):
    """A name, type or structural rule is broken (codes EG2xx)."""
