"""The exception root of :mod:`evalgap.translators`."""

from __future__ import annotations

from evalgap.specs_lang.ast import Span

__all__ = ["TranslationError", "UnsupportedConstruct"]


class TranslationError(ValueError):
    """Root of the errors raised while translating a spec into an obligation (icontract, Z3, Hypothesis)."""


class UnsupportedConstruct(TranslationError):
    """A construct the target formalism cannot express; it becomes an honest ``unknown`` for the
    requirement, never a silent drop.

    Attributes:
        construct: short name of the construct (``old()``, ``method``, ...).
        span: where it is in the spec.
    """

    def __init__(self, construct: str, span: Span, detail: str = "") -> None:
        self.construct = construct
        self.span = span
        super().__init__(f"{construct} is not supported here{': ' + detail if detail else ''} ({span})")
