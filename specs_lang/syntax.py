"""Syntax-error diagnostics of the parser: lark's errors as EG1xx diagnostics in the language's words.

Every diagnostic names file, line and column (the caret is drawn by
:meth:`~evalgap.specs_lang.errors.SpecError.render`). The expected-token list uses what the user writes
(``'('``, ``'requirement'``, "an identifier", "a string", "a newline"), never the grammar's terminal names.
Common mistakes are recognized with lark's :meth:`~lark.exceptions.UnexpectedInput.match_examples` (the parser
state of the error compared with that of known malformed examples, :data:`MISTAKES`) and get a message
saying what is wrong and a hint showing the right form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from evalgap.specs_lang.ast import Span
from evalgap.specs_lang.errors import Diagnostic, SpecError, SpecSyntaxError
from evalgap.specs_lang.diagnostics import (NESTED_TOO_DEEPLY, UNEXPECTED_CHARACTER, UNEXPECTED_TOKEN,
                                            UNTERMINATED_STRING)

if TYPE_CHECKING:
    from lark import Lark

__all__ = ["syntax_error", "too_deep", "describe_expected", "MISTAKES", "Mistake"]

#: What the named (not literal) terminals stand for; literal ones are shown quoted (``'requirement'``).
_WORDS: dict[str, str] = {
    "NAME": "an identifier", "STRING": "a string", "BYTES": "a bytes literal", "INT": "an integer",
    "FLOAT": "a decimal number", "PATHLIKE": "a file path", "_NL": "a newline", "_INDENT": "an indented block",
    "_DEDENT": "the end of the indented block", "$END": "end of file",
}

_CLAUSE_KEYWORDS = {"requires", "ensures", "invariant", "example", "informal", "scenario", "expect"}


class Mistake(NamedTuple):
    """A common mistake: malformed examples, and what to tell the user when an error matches them.

    ``tokens`` restricts the match to errors at one of these tokens (a token's text such as ``'='``, or a
    terminal name such as ``_NL``, a newline); None matches any token at the examples' parser state.
    """

    examples: tuple[str, ...]
    tokens: frozenset[str] | None
    message: str
    hint: str


#: The mistakes recognized by :func:`syntax_error`, tried in order.
MISTAKES: dict[str, Mistake] = {
    "scenario-colon": Mistake(
        ('requirement R "p"\n  scenario (k: int)\n    expect k\n',
         'requirement R "p"\n  scenario ()\n    expect f()\n'),
        None, "missing ':' after the scenario's parameters",
        "write `scenario (x: int):` and indent the scenario's statements under it"),
    "assign-in-clause": Mistake(
        tuple(f'requirement R "p"\n  ensures {e} = 1\n' for e in
              ("x", "f(x)", "x[0]", "x.a", "1", '"s"', "(x)", "[x]", "x + y", "result"))
        + ('requirement R "p"\n  scenario ():\n    expect f() = 1\n',),
        frozenset({"="}), "'=' assigns a name in a scenario; to compare, write '=='",
        "a clause states a condition: `ensures result == 0`"),
    "requirement-without-prose": Mistake(
        tuple(f"requirement {rid}\n  ensures x\n" for rid in ("R", "R-1", "R-A", "R.1.2", "KV-1-a")),
        frozenset({"_NL"}), "a requirement needs its prose (a string) after its ID",
        'write `requirement R-1 "What the code must do."`'),
    "requirement-without-id": Mistake(
        ('requirement "p"\n  ensures x\n',),
        None, "a requirement needs an ID before its prose",
        'write `requirement R-1 "What the code must do."` (an ID is letters, digits, `-` and `.`)'),
}


def describe_expected(expected: set[str] | frozenset[str], parser: Lark) -> str:
    """The expected terminals in the language's words, sorted, at most eight then ``...``.

    Args:
        expected: terminal names from a lark error.
        parser: the parser that raised it (for the terminals' patterns).

    Returns:
        A comma-separated list such as ``"'(', '-', an identifier, a string"``.
    """
    names = set()
    for t in expected:
        if t in _WORDS:
            names.add(_WORDS[t])
            continue
        try:
            term = parser.get_terminal(t)
        except KeyError:
            names.add(t.lower())
            continue
        names.add(f"'{term.pattern.value}'" if term.pattern.type == "str" else t.lower())
    out = sorted(names, key=lambda n: (not n.startswith("'"), n))
    if len(out) > 8:
        out = out[:8] + ["..."]
    return ", ".join(out)


def _token_text(tok: Token) -> str:
    if tok.type in ("_NL", "_INDENT", "_DEDENT", "$END"):
        return {"_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
                "$END": "end of file"}[tok.type]
    return repr(str(tok))


class _At:
    """A parser state compared by its LALR state only (lark's ``ParserState`` also compares the stack depth,
    so an example would match only a mistake at its own nesting depth)."""

    def __init__(self, position: object) -> None:
        self.position = position

    def __eq__(self, other: object) -> bool:
        return bool(getattr(other, "position", other) == self.position)

    __hash__ = None  # type: ignore[assignment]

    def __index__(self) -> int:  # lark formats the state with %d in a debug message
        return self.position if isinstance(self.position, int) else 0


def _mistake(exc: UnexpectedToken, parser: Lark) -> Mistake | None:
    """The entry of :data:`MISTAKES` whose examples fail in the parser state of ``exc`` (and at one of its
    tokens), else None."""
    from evalgap.specs_lang.parser import _PARSE_LOCK, IndentProblem, TooDeep, builder

    def parse_fn(text: str) -> Any:
        with _PARSE_LOCK:
            try:
                builder(parser).reset("<example>", text)
                return parser.parse(text)
            except (SpecError, IndentProblem, TooDeep):
                return None

    saved = exc.state
    exc.state = _At(getattr(saved, "position", saved))
    try:  # use_accepts=False: lark's accepts() deep-copies the parser's values once per terminal
        label = exc.match_examples(parse_fn, [(k, m.examples) for k, m in MISTAKES.items()],
                                   token_type_match_fallback=True, use_accepts=False)
    finally:
        exc.state = saved
    found = MISTAKES.get(label) if label is not None else None
    if found is not None and found.tokens is not None and not {exc.token.type, str(exc.token)} & found.tokens:
        return None
    return found


def syntax_error(exc: UnexpectedInput, file: str, text: str, parser: Lark) -> SpecSyntaxError:
    """The diagnostic (EG101 unexpected token, EG102 unexpected character, EG105 unterminated string) of a
    lark error.

    Args:
        exc: the error lark raised.
        file: the name used in the span.
        text: the source (for the caret and the line's text).
        parser: the parser that raised it (the same one is used to match :data:`MISTAKES`).

    Returns:
        A :class:`SpecSyntaxError` with one diagnostic (to raise).
    """
    line = getattr(exc, "line", None) or 1
    col = getattr(exc, "column", None) or 1
    lines = text.splitlines()
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END" or tok.line is None:
            last = lines or [""]
            line, col = len(last), len(last[-1]) + 1
        elif tok.type in ("_NL", "_DEDENT", "_INDENT"):  # point at the end of the line the newline ends
            line = tok.line or line
            col = len(lines[line - 1].rstrip() if line - 1 < len(lines) else "") + 1
        else:
            line, col = tok.line or line, tok.column or col
        width = len(str(tok)) if tok.type not in ("_NL", "_INDENT", "_DEDENT", "$END") else 1
        msg = f"unexpected {_token_text(tok)}; expected {describe_expected(exc.expected, parser)}"
        hint = None
        before = lines[line - 1][:col - 1] if 0 < line <= len(lines) else ""
        if before.rstrip().split(" ")[-1] in ("forall", "exists"):
            hint = ("a quantifier after a comparison, an arithmetic operator, `if`, `else` or `in` needs "
                    "parentheses: `x == (forall y in ys: p)`")
        if tok.type == "_INDENT":
            msg = "unexpected indentation"
            hint = "indent only the body of a requirement, function, class or scenario"
        elif ("_INDENT" in exc.expected and tok.type != "_INDENT") or (col == 1 and str(tok) in _CLAUSE_KEYWORDS):
            hint = "clauses must be indented under their requirement, and statements under their scenario"
        mistake = _mistake(exc, parser) if tok.type != "_INDENT" else None
        if mistake is not None:
            msg, hint = mistake.message, mistake.hint
        span = Span(file, line, col, line, col + width)
        return SpecSyntaxError([Diagnostic(UNEXPECTED_TOKEN, span, msg, hint)], {file: text})
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream if exc.pos_in_stream is not None else len(text)
        ch = text[pos] if pos < len(text) else "?"
        code, msg, chint = UNEXPECTED_CHARACTER, f"unexpected character {ch!r}", None
        if ch in "\"'" or (ch == "b" and text[pos + 1: pos + 2] in "\"'"):
            code, msg, chint = UNTERMINATED_STRING, "unterminated string literal", "close the string on the same line"
        elif exc.allowed:
            msg += f"; expected {describe_expected(exc.allowed, parser)}"
        span = Span(file, line, col, line, col + 1)
        return SpecSyntaxError([Diagnostic(code, span, msg, chint)], {file: text})
    if isinstance(exc, UnexpectedEOF):
        last = lines or [""]
        span = Span(file, len(last), len(last[-1]) + 1, len(last), len(last[-1]) + 2)
        msg = f"unexpected end of file; expected {describe_expected(set(exc.expected), parser)}"
        return SpecSyntaxError([Diagnostic(UNEXPECTED_TOKEN, span, msg)], {file: text})
    span = Span(file, line, col, line, col + 1)  # pragma: no cover - lark has no other UnexpectedInput
    return SpecSyntaxError([Diagnostic(UNEXPECTED_TOKEN, span, str(exc).splitlines()[0])], {file: text})


def too_deep(file: str, text: str, line: int | None = None, col: int | None = None) -> SpecSyntaxError:
    """EG106: an expression nested too deeply (:data:`~evalgap.specs_lang.parser.MAX_NESTING`).

    Args:
        file: the name used in the span.
        text: the source.
        line: the line of the bracket or operator past the limit; None for the first line with the most unclosed
            brackets (a count of ``([{`` minus ``)]}`` characters from the start of the text, strings and
            comments not excluded: a pointer, not a parse).
        col: its column (with ``line``).

    Returns:
        A :class:`SpecSyntaxError` with one diagnostic (to raise).
    """
    if line is None or col is None:
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
    from evalgap.specs_lang.parser import MAX_NESTING

    diag = Diagnostic(NESTED_TOO_DEEPLY, Span(file, line, col, line, col + 1),
                      f"expression nested too deeply (more than {MAX_NESTING} levels)",
                      "name parts of the expression with `let` to nest less")
    return SpecSyntaxError([diag], {file: text})
