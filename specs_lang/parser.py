"""Parse ``.req`` text into a typed :class:`~evalgap.specs_lang.ast.Spec`.

Two parsers build the same AST. The fast one (:mod:`evalgap.specs_lang.fastparse`, a hand-written lexer and
recursive-descent parser) parses every valid spec; when it does not accept a text, the lark parser
(:mod:`evalgap.specs_lang.larkparse`, LALR(1) over ``grammar/spec.lark``, the normative grammar) parses it
again and either accepts it or reports the syntax error with its EG1xx diagnostics (file, line, column,
caret, what was expected). So lark is imported and its parser built only for texts with errors (or the
rare valid text the fast parser leaves to it). Only :class:`~evalgap.specs_lang.errors.SpecError`
subclasses escape :func:`parse` and :func:`parse_file`.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

from evalgap.specs_lang.ast import Span, Spec
from evalgap.specs_lang.errors import Diagnostic, SpecSyntaxError
from evalgap.specs_lang.fastparse import parse_fast

if TYPE_CHECKING:
    from lark import Lark

__all__ = ["parse", "parse_file", "grammar"]


def grammar() -> Lark:
    """The compiled lark LALR parser (see :func:`evalgap.specs_lang.larkparse.grammar`; built once per process)."""
    from evalgap.specs_lang.larkparse import grammar as build

    return build()


def parse(text: str, file: str = "<spec>") -> Spec:
    """Parse spec text.

    Args:
        text: the whole ``.req`` source.
        file: the name used in spans and diagnostics (a path, or ``<spec>``).

    Returns:
        The typed :class:`Spec` with spans; structural rules are checked by
        :func:`evalgap.specs_lang.check.check_structure`, not here.

    Raises:
        SpecSyntaxError: the text does not fit the grammar (EG101-EG105), with line, column and caret.
        SpecNameError: a malformed requirement ID (EG104).
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()  # parsing builds no reference cycles; collections over the growing AST cost more than the parse
    try:
        return parse_fast(text, file)
    except Exception:  # noqa: BLE001 - Reject (a syntax error), or anything else: the lark parser is normative
        pass
    finally:
        if gc_was_enabled:
            gc.enable()
    from evalgap.specs_lang.larkparse import parse_lark

    return parse_lark(text, file)


def parse_file(path: str | Path) -> Spec:
    """Read and parse a ``.req`` file.

    Args:
        path: file path; used verbatim in diagnostics.

    Returns:
        The parsed :class:`Spec` (``spec.file`` is ``str(path)``).

    Raises:
        SpecSyntaxError: unreadable file (EG100) or bad syntax (EG1xx).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        diag = Diagnostic("EG100", Span(str(path), 1, 1, 1, 1), f"cannot read spec file: {reason}",
                          "check the path; a spec is a UTF-8 text file ending in .req")
        raise SpecSyntaxError([diag]) from None
    return parse(text, str(path))
