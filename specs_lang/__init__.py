"""evalgap's requirement spec language: grammar, parser, typed AST, checker.

Public entry points: :func:`parse`, :func:`parse_file`, :func:`check_structure`, the AST module
:mod:`evalgap.specs_lang.ast`, and the error root :class:`SpecError`.
"""

from evalgap.specs_lang.check import check_structure
from evalgap.specs_lang.errors import CODES, Diagnostic, SpecError, SpecNameError, SpecSyntaxError
from evalgap.specs_lang.parser import parse, parse_file

__all__ = ["parse", "parse_file", "check_structure", "Diagnostic", "SpecError", "SpecSyntaxError",
           "SpecNameError", "CODES"]
