"""Translators from the typed spec AST to checkable obligations.

* :mod:`evalgap.translators.to_icontract`: a harness module of icontract contracts (for CrossHair and
  for concrete replay).
* :mod:`evalgap.translators.pyexpr`: spec expressions to Python source.

Error root: :class:`TranslationError`.
"""

from evalgap.translators.errors import TranslationError, UnsupportedConstruct
from evalgap.translators.to_icontract import Harness, Obligation, build_harness

__all__ = ["TranslationError", "UnsupportedConstruct", "Harness", "Obligation", "build_harness"]
