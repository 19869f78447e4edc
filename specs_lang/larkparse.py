"""The lark path: the normative LALR(1) parser of ``grammar/spec.lark`` and its diagnostics.

The grammar is LALR(1) with an indentation post-lexer; lark's errors are turned into
:class:`~evalgap.specs_lang.errors.SpecSyntaxError` diagnostics naming file, line and column with a caret and
what was expected. :func:`~evalgap.specs_lang.parser.parse` runs this parser only when the fast parser
(:mod:`evalgap.specs_lang.fastparse`) does not accept the text (a syntax error: the diagnostics come from
here), and the tests compare both. The compiled parser is built once per process, from lark's grammar cache
when one is present (:func:`grammar_cache_file`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Iterator

import lark
from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import Indenter

from evalgap.specs_lang.ast import Span, Spec
from evalgap.specs_lang.errors import Diagnostic, SpecError, SpecSyntaxError

__all__ = ["parse_lark", "grammar", "grammar_cache_file"]

#: Human names of the grammar's terminals, used in "expected ..." messages.
_TERMINAL_NAMES: dict[str, str] = {
    "NAME": "a name", "STRING": "a string", "BYTES": "a bytes literal", "INT": "an integer",
    "FLOAT": "a float", "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "$END": "end of file", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'",
    "RBRACE": "'}'", "COLON": "':'", "COMMA": "','", "DOT": "'.'", "EQUAL": "'='", "PATHLIKE": "a file path",
    "QUANT": "'forall' or 'exists'", "ADD_OP": "'+' or '-'", "MUL_OP": "an operator", "UNARY_OP": "'-'",
    "REQ_SEP": "'-' or '.'", "MORETHAN": "'>'", "LESSTHAN": "'<'", "__ANON_0": "an operator",
}


_CLAUSE_KEYWORDS = {"requires", "ensures", "invariant", "example", "informal", "scenario", "expect"}


class _SpecIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def handle_NL(self, token: Token) -> Iterator[Token]:
        if self.paren_level > 0:
            return
        yield token
        indent_str = token.rsplit("\n", 1)[1]
        if "#" in indent_str:  # a comment-only last line: its indentation does not count
            indent_str = indent_str.split("#", 1)[0]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            self.indent_level.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
        else:
            while indent < self.indent_level[-1]:
                self.indent_level.pop()
                yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
            if indent != self.indent_level[-1]:
                line = (token.end_line or token.line or 1)
                raise _IndentProblem(line, indent + 1, indent, self.indent_level[-1])


class _IndentProblem(Exception):
    def __init__(self, line: int, col: int, got: int, want: int) -> None:
        super().__init__(line, col)
        self.line, self.col, self.got, self.want = line, col, got, want


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


@functools.lru_cache(maxsize=1)
def grammar() -> Lark:
    """The compiled LALR parser (built once per process, only when needed: the fast parser handles valid text).

    Loads lark's grammar cache (:func:`grammar_cache_file`) when present and valid; lark checks the cache
    against the grammar text and its options, and a cache that cannot be read or written is ignored.

    Returns:
        A :class:`lark.Lark` instance with positions propagated and the indentation post-lexer, built with
        ``strict=True`` (a shift/reduce conflict or a terminal collision is an error, never resolved silently).
    """
    cache = grammar_cache_file()
    return Lark.open_from_package(
        "evalgap.specs_lang", "spec.lark", ("grammar",), parser="lalr", postlex=_SpecIndenter(),
        propagate_positions=True, maybe_placeholders=True, strict=True, cache=str(cache) if cache else False,
    )


def _describe_expected(expected: set[str] | frozenset[str]) -> str:
    names = sorted({_TERMINAL_NAMES.get(t, f"'{t.lower()}'" if t.isupper() and not t.startswith("_") else t)
                    for t in expected})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def _token_text(tok: Token) -> str:
    if tok.type == "_NL":
        return "end of line"
    if tok.type == "_INDENT":
        return "an indented block"
    if tok.type == "_DEDENT":
        return "end of block"
    if tok.type == "$END":
        return "end of file"
    return repr(str(tok))


def _syntax_error(exc: UnexpectedInput, file: str, text: str) -> SpecSyntaxError:
    line = getattr(exc, "line", None) or 1
    col = getattr(exc, "column", None) or 1
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END" or tok.line is None:
            lines = text.splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
        elif tok.type in ("_NL", "_DEDENT", "_INDENT"):
            # point at the end of the line the newline ends
            line = tok.line or line
            src_line = text.splitlines()[line - 1] if line - 1 < len(text.splitlines()) else ""
            col = len(src_line.rstrip()) + 1
        else:
            line, col = tok.line or line, tok.column or col
        width = len(str(tok)) if tok.type not in ("_NL", "_INDENT", "_DEDENT", "$END") else 1
        msg = f"unexpected {_token_text(tok)}; expected {_describe_expected(exc.expected)}"
        hint = None
        before = text.splitlines()[line - 1][:col - 1] if 0 < line <= len(text.splitlines()) else ""
        if before.rstrip().split(" ")[-1] in ("forall", "exists"):
            hint = ("a quantifier after a comparison, an arithmetic operator, `if`, `else` or `in` needs "
                    "parentheses: `x == (forall y in ys: p)`")
        if tok.type == "_INDENT":
            msg = "unexpected indentation"
            hint = "indent only the body of a requirement, function, class or scenario"
        elif ("_INDENT" in exc.expected and tok.type != "_INDENT") or (
                col == 1 and str(tok) in _CLAUSE_KEYWORDS):
            hint = ("clauses must be indented under their requirement, and statements under their "
                    "scenario")
        span = Span(file, line, col, line, col + width)
        return SpecSyntaxError([Diagnostic("EG101", span, msg, hint)], {file: text})
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream if exc.pos_in_stream is not None else len(text)
        ch = text[pos] if pos < len(text) else "?"
        code, msg, hint = "EG102", f"unexpected character {ch!r}", None
        if ch in "\"'" or (ch == "b" and text[pos + 1: pos + 2] in "\"'"):
            code, msg, hint = "EG105", "unterminated string literal", "close the string on the same line"
        elif exc.allowed:
            msg += f"; expected {_describe_expected(exc.allowed)}"
        span = Span(file, line, col, line, col + 1)
        return SpecSyntaxError([Diagnostic(code, span, msg, hint)], {file: text})
    if isinstance(exc, UnexpectedEOF):
        lines = text.splitlines() or [""]
        span = Span(file, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2)
        msg = f"unexpected end of file; expected {_describe_expected(set(exc.expected))}"
        return SpecSyntaxError([Diagnostic("EG101", span, msg)], {file: text})
    span = Span(file, line, col, line, col + 1)  # pragma: no cover - lark has no other UnexpectedInput
    return SpecSyntaxError([Diagnostic("EG101", span, str(exc).splitlines()[0])], {file: text})


def parse_lark(text: str, file: str = "<spec>") -> Spec:
    """Parse spec text with the lark parser (the normative path, and the one giving diagnostics).

    Args:
        text: the whole ``.req`` source.
        file: the name used in spans and diagnostics (a path, or ``<spec>``).

    Returns:
        The typed :class:`Spec` with spans; structural rules are checked by
        :func:`evalgap.specs_lang.check.check_structure`, not here.

    Raises:
        SpecSyntaxError: the text does not fit the grammar (EG101-EG105; EG106 for an expression nested too deeply), with
            line, column and caret.
        SpecNameError: a malformed requirement ID (EG104).
    """
    from evalgap.specs_lang.build import build_spec

    src = text if text.endswith("\n") else text + "\n"
    try:
        tree = grammar().parse(src)
    except _IndentProblem as exc:
        span = Span(file, exc.line, exc.col, exc.line, exc.col + 1)
        diag = Diagnostic("EG103", span, f"dedent to column {exc.got + 1} matches no enclosing block",
                          f"indent this line to column {exc.want + 1} or to an outer block's column")
        raise SpecSyntaxError([diag], {file: text}) from None
    except UnexpectedInput as exc:
        raise _syntax_error(exc, file, text) from None
    try:
        return build_spec(tree, file, text)
    except VisitError as exc:  # lark wraps errors raised inside transformer callbacks
        if isinstance(exc.orig_exc, SpecError):
            raise exc.orig_exc from None
        if isinstance(exc.orig_exc, RecursionError):
            raise _too_deep(file, text) from None
        raise
    except RecursionError:  # lark's tree transformer recurses once per tree level (~20 per bracket)
        raise _too_deep(file, text) from None


def _too_deep(file: str, text: str) -> SpecSyntaxError:
    """EG106 at the first line with the most unclosed brackets (a count of ``([{`` minus ``)]}`` characters
    from the start of the text, strings and comments not excluded: a pointer, not a parse)."""
    depth, best, best_off = 0, -1, 0
    for off, ch in enumerate(text):
        if ch in "([{":
            depth += 1
            if depth > best:
                best, best_off = depth, off
        elif ch in ")]}":
            depth -= 1
    line = text.count("\n", 0, best_off) + 1
    col = best_off - (text.rfind("\n", 0, best_off) + 1) + 1
    diag = Diagnostic("EG106", Span(file, line, col, line, col + 1),
                      "expression nested too deeply for the parser (Python's recursion limit)",
                      "name parts of the expression with `let` to nest less")
    return SpecSyntaxError([diag], {file: text})
