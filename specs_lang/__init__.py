"""evalgap's requirement spec language: grammar, parser, typed AST, checker.

Public entry points: :func:`parse`, :func:`parse_file`, :func:`check_structure`, the AST module
:mod:`evalgap.specs_lang.ast`, and the error root :class:`SpecError`. Names are imported on first use, so
that ``from evalgap.specs_lang.errors import SpecError`` (every command's error handling) does not load the
parser, the AST and lark.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalgap.specs_lang.check import check_structure
    from evalgap.specs_lang.errors import CODES, Diagnostic, SpecError, SpecNameError, SpecSyntaxError
    from evalgap.specs_lang.parser import parse, parse_file

__all__ = ["parse", "parse_file", "check_structure", "Diagnostic", "SpecError", "SpecSyntaxError",
           "SpecNameError", "CODES"]

_HOME = {"parse": "parser", "parse_file": "parser", "check_structure": "check",
         **{n: "errors" for n in ("CODES", "Diagnostic", "SpecError", "SpecNameError", "SpecSyntaxError")}}


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (raises AttributeError for other names)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'evalgap.specs_lang' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"evalgap.specs_lang.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
