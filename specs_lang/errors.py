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

from evalgap.specs_lang.ast import Span

__all__ = ["Diagnostic", "SpecError", "SpecSyntaxError", "SpecNameError", "render_diagnostic", "CODES"]

#: Every diagnostic code with its one-line meaning (the table in docs/diagnostics.md mirrors it).
CODES: dict[str, str] = {
    "EG100": "the file cannot be read (missing, a folder, or not UTF-8)",
    "EG101": "unexpected token: the text does not fit the grammar here",
    "EG102": "unexpected character: no token of the language starts here",
    "EG103": "bad indentation (a block must be indented more than its header, consistently)",
    "EG104": "malformed requirement ID (letters, digits, '_', '-' and '.', no spaces)",
    "EG105": "unterminated string or bytes literal",
    "EG106": "expression or type nested too deeply (more than 100 brackets, nested operators or type levels)",
    "EG107": "the file is larger than the input size limit (4 MiB for a spec, 16 MiB for prose or a target)",
    "EG201": "duplicate requirement ID",
    "EG202": "unknown informal category",
    "EG203": "empty prose",
    "EG204": "`result` used outside a postcondition",
    "EG205": "requirement mixes `informal` with formal clauses",
    "EG206": "unknown type name",
    "EG207": "name is not defined in the spec or the target",
    "EG208": "no target: give `target:` in the spec or --target on the command line",
    "EG209": "scenario has no `expect` statement",
    "EG210": "requirement outside any function or class states a function clause",
    "EG211": "the target defines no such function, class or method",
    "EG212": "a declared parameter does not match the target's signature",
    "EG213": "wrong number of arguments or unknown keyword in a call",
    "EG214": "unknown attribute (of a record or a class of the target)",
    "EG215": "`old()` outside a postcondition",
    "EG216": "type error: incompatible operands, len of a non-collection, comparing values of different kinds",
    "EG217": "a clause is not a truth value (its value is a number, string or collection)",
    "EG218": "clause in the wrong place (rule outside config, invariant outside class, raises outside function)",
    "EG219": "call of an impure builtin (print, open, eval, ...)",
    "EG220": "imported spec cannot be read, or imports form a cycle",
    "EG221": "a name is declared twice",
    "EG222": "a stub replaces a name the target does not define",
    "EG223": "the spec states no requirement (it would check nothing and pass)",
    "EG224": "empty range or length: the low bound is above the high bound (`int in 10..0`)",
    "EG225": "dunder attribute access (`.__class__`, `getattr(x, \"__dict__\")`) in a clause",
    # EG3xx: findings of the Z3 analysis about the spec (verifier/spec_findings.py, docs/analysis.md)
    "EG300": "consistent: the requirements can hold together (a witness assignment exists)",
    "EG301": "conflict: the requirements cannot all hold (a minimal unsat core names them)",
    "EG302": "vacuous precondition or assume: it can never hold",
    "EG303": "vacuous implication: its left side can never be true given the other requirements",
    "EG304": "redundant: the requirement is implied by the others (information)",
    "EG305": "unrealizable: an input meets the preconditions but no result meets the postconditions",
    "EG306": "realizable: every input meeting the preconditions has an allowed result",
    "EG307": "weak-spec witness: an obviously wrong behaviour satisfies the spec",
    "EG308": "not in the Z3 fragment: the requirement was not analysed (the construct is named)",
    "EG309": "the solver returned unknown (the reason is given)",
    "EG310": "config rule violated by the configuration file (offending values named)",
    "EG311": "smallest repair of the configuration (fewest fields, then smallest numeric distance)",
    "EG312": "approximated: the requirement was analysed with an approximation (floats as reals ...)",
}


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a spec file.

    Attributes:
        code: stable code from :data:`CODES` (``EG1xx`` syntax, ``EG2xx`` names and types).
        span: where it is (1-based line and column, end exclusive).
        message: one line saying what is wrong and what was expected.
        hint: an optional one-line suggestion (``did you mean `items`?``).
    """

    code: str
    span: Span
    message: str
    hint: str | None = None


def render_diagnostic(diag: Diagnostic, source: str | None) -> str:
    """Render ``diag`` as ``file:line:col: error CODE: message``, the source line and a caret range.

    Args:
        diag: the diagnostic.
        source: the whole text of ``diag.span.file``, or None when it is not available (no excerpt).

    Returns:
        A multi-line string without a trailing newline.
    """
    sp = diag.span
    out = [f"{sp.file}:{sp.line}:{sp.col}: error {diag.code}: {diag.message}"]
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
