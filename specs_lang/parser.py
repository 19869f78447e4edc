"""Parse ``.req`` text into a typed :class:`~evalgap.specs_lang.ast.Spec`: one parser, lark's LALR(1).

The grammar (``grammar/spec.lark``, the normative definition of the language) is compiled once per process
(:func:`grammar`, from lark's on-disk grammar cache when present) into an LALR(1) parser with lark's
contextual lexer and an indentation post-lexer. The AST is built while the parser reduces: the
:class:`~evalgap.specs_lang.build.Builder` is passed to ``Lark(..., transformer=...)``, so no parse tree is
made. The garbage collector is paused during a parse (the AST has no reference cycles; collections over the
growing AST cost more than the parse). Syntax errors become EG1xx diagnostics with file, line, column,
caret and what was expected (:mod:`evalgap.specs_lang.syntax`). Only
:class:`~evalgap.specs_lang.errors.SpecError` subclasses escape :func:`parse` and :func:`parse_file`.

Thread safety: the parser is built once under a lock, and parses are serialized by another (the embedded
transformer and the post-lexer hold the state of one parse; a parse is pure Python, so under the GIL the
lock costs no throughput).
"""

from __future__ import annotations

import gc
import hashlib
import os
import sys
import threading
from importlib import resources
from pathlib import Path
from typing import Iterator

import lark
from evalgap.specs_lang import syntax
from evalgap.specs_lang.ast import Span, Spec
from evalgap.specs_lang.build import Builder
from evalgap.specs_lang.diagnostics import BAD_INDENTATION, UNREADABLE_FILE
from evalgap.specs_lang.errors import Diagnostic, SpecSyntaxError
from lark import Lark, Token
from lark.exceptions import UnexpectedInput
from lark.lark import PostLex

__all__ = ["parse", "parse_file", "grammar", "build_grammar", "builder", "grammar_cache_file", "layout", "MAX_NESTING"]

#: Brackets nested deeper than this, a longer run of prefix operators (``not not ...``, ``- - ...``), or more
#: right-associative operators (``**``, ``==>``, ``<==>``) on one logical line are EG106: the checker, the
#: formatter and the translators walk the AST recursively.
MAX_NESTING = 100

_PREFIX = frozenset({"NOT", "MINUS", "PLUS"})
_RIGHT = frozenset({"**", "==>", "<==>"})
_OPEN = frozenset({"LPAR", "LSQB", "LBRACE"})
_CLOSE = frozenset({"RPAR", "RSQB", "RBRACE"})
_TAB_LEN = 8


class IndentProblem(Exception):
    """A dedent to a column that matches no enclosing block (EG103)."""

    def __init__(self, line: int, col: int, got: int, want: int) -> None:
        super().__init__(line, col)
        self.line, self.col, self.got, self.want = line, col, got, want


class TooDeep(Exception):
    """An opening bracket past :data:`MAX_NESTING` (EG106)."""

    def __init__(self, token: Token) -> None:
        super().__init__(token.line, token.column)
        self.token = token


def _indent(stream: Iterator[Token]) -> Iterator[Token]:
    """Python-style layout: ``_INDENT``/``_DEDENT`` tokens from the ``_NL`` tokens, newlines inside brackets
    dropped; the state is local, so concurrent token streams do not share it."""
    levels = [0]
    depth = run = right = 0
    token = None
    for token in stream:
        kind = token.type
        if kind == "_NL":
            if depth > 0:
                continue
            right = 0
            yield token
            indent_str = token.rsplit("\n", 1)[1]
            if "#" in indent_str:  # a comment-only last line: its indentation does not count
                indent_str = indent_str.split("#", 1)[0]
            indent = indent_str.count(" ") + indent_str.count("\t") * _TAB_LEN
            if indent > levels[-1]:
                levels.append(indent)
                yield Token.new_borrow_pos("_INDENT", indent_str, token)
            else:
                while indent < levels[-1]:
                    levels.pop()
                    yield Token.new_borrow_pos("_DEDENT", indent_str, token)
                if indent != levels[-1]:
                    raise IndentProblem(token.end_line or token.line or 1, indent + 1, indent, levels[-1])
            continue
        yield token
        if kind in _PREFIX:
            run += 1
            if run > MAX_NESTING:
                raise TooDeep(token)
            continue
        run = 0
        if kind in _OPEN:
            depth += 1
            if depth > MAX_NESTING:
                raise TooDeep(token)
        elif kind in _CLOSE:
            depth -= depth > 0
        elif token in _RIGHT:
            right += 1
            if right > MAX_NESTING:
                raise TooDeep(token)
    while len(levels) > 1:
        levels.pop()
        yield Token.new_borrow_pos("_DEDENT", "", token) if token else Token("_DEDENT", "", 0, 1, 1, 1, 1, 1)


class _Layout(PostLex):
    always_accept = ("_NL",)

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return _indent(stream)


def grammar_cache_file() -> Path | None:
    """Where lark's grammar cache lives: ``$EVALGAP_CACHE_DIR/lark/`` (else ``$XDG_CACHE_HOME/evalgap``, else
    ``~/.cache/evalgap``, as the result cache), one file per grammar text, lark version and Python version.

    Returns:
        The file path, or None when the folder cannot be created (then the grammar is built without cache).
    """
    try:
        env = os.environ.get("EVALGAP_CACHE_DIR")
        base = Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evalgap"
        text = resources.files("evalgap.specs_lang").joinpath("grammar", "spec.lark").read_text(encoding="utf-8")
        folder = base / "lark"
        folder.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # no home folder, a read-only or clashing path: build without cache
        return None
    key = hashlib.sha256(f"{text}|{lark.__version__}|{sys.version_info[:2]}".encode()).hexdigest()[:16]
    return folder / f"spec-grammar-{key}.cache"


def layout() -> PostLex:
    """A new indentation post-lexer (``_INDENT``/``_DEDENT`` from the ``_NL`` tokens) for the spec parser.

    Returns:
        The post-lexer, stateless between token streams.
    """
    return _Layout()


def build_grammar() -> Lark:
    """Compile the grammar into a new parser (use :func:`grammar`, which does this once per process).

    Uses the LALR(1) tables shipped beside the grammar (:mod:`evalgap.specs_lang.tables`) when they match the
    grammar text and the installed lark; otherwise builds them, through lark's grammar cache
    (:func:`grammar_cache_file`) when present and valid (lark checks the cache against the grammar text and
    its options; a cache that cannot be read or written is ignored).

    Returns:
        A :class:`lark.Lark` LALR(1) parser with the contextual lexer, the indentation post-lexer and a new
        :class:`~evalgap.specs_lang.build.Builder` as its embedded transformer (``parse`` returns a
        :class:`Spec`; call ``options.transformer.reset(file, text)`` first). Built with ``strict=True``: a
        shift/reduce conflict or a terminal collision is an error, never resolved silently (the shipped
        tables were built the same way).
    """
    from evalgap.specs_lang import tables

    shipped = tables.load(layout(), Builder())
    if shipped is not None:
        return shipped
    cache = grammar_cache_file()
    return tables.build_strict(layout(), Builder(), cache=str(cache) if cache else False)


_BUILD_LOCK = threading.Lock()
_PARSE_LOCK = threading.Lock()
_PARSER: Lark | None = None


def grammar() -> Lark:
    """The compiled parser of :func:`build_grammar`, built on first use and shared by the process.

    Returns:
        The same :class:`lark.Lark` instance on every call (from any thread).
    """
    global _PARSER
    if _PARSER is None:
        with _BUILD_LOCK:
            if _PARSER is None:
                _PARSER = build_grammar()
    return _PARSER


def builder(parser: Lark) -> Builder:
    """The embedded transformer of a parser from :func:`build_grammar`.

    Args:
        parser: the parser.

    Returns:
        Its :class:`~evalgap.specs_lang.build.Builder`.

    Raises:
        TypeError: the parser was not built by :func:`build_grammar`.
    """
    found = parser.options.transformer
    if not isinstance(found, Builder):
        raise TypeError("not a parser from build_grammar()")
    return found


def parse(text: str, file: str = "<spec>") -> Spec:
    """Parse spec text.

    Args:
        text: the whole ``.req`` source.
        file: the name used in spans and diagnostics (a path, or ``<spec>``).

    Returns:
        The typed :class:`Spec` with spans; structural rules are checked by
        :func:`evalgap.specs_lang.check.check_structure`, not here.

    Raises:
        SpecSyntaxError: the text does not fit the grammar (EG101-EG105; EG106 for brackets nested too
            deeply), with line, column and caret.
    """
    src = text if text.endswith("\n") else text + "\n"
    parser = grammar()
    with _PARSE_LOCK:
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            builder(parser).reset(file, text)
            spec = parser.parse(src)
        except IndentProblem as exc:
            span = Span(file, exc.line, exc.col, exc.line, exc.col + 1)
            diag = Diagnostic(BAD_INDENTATION, span, f"dedent to column {exc.got + 1} matches no enclosing block",
                              f"indent this line to column {exc.want + 1} or to an outer block's column")
            raise SpecSyntaxError([diag], {file: text}) from None
        except TooDeep as exc:
            tok = exc.token
            raise syntax.too_deep(file, text, tok.line or 1, tok.column or 1) from None
        except UnexpectedInput as exc:
            err = exc
        except RecursionError:  # nothing in the parse recurses per nesting level; kept as a safety net
            raise syntax.too_deep(file, text) from None
        else:
            assert isinstance(spec, Spec)
            return spec
        finally:
            if gc_was_enabled:
                gc.enable()
    raise syntax.syntax_error(err, file, text, parser) from None


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
        diag = Diagnostic(UNREADABLE_FILE, Span(str(path), 1, 1, 1, 1), f"cannot read spec file: {reason}",
                          "check the path; a spec is a UTF-8 text file ending in .req")
        raise SpecSyntaxError([diag]) from None
    return parse(text, str(path))
