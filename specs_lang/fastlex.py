"""The fast path's lexer: ``.req`` text -> a list of tokens with positions and layout tokens.

It produces the token stream lark's contextual lexer and the indentation post-lexer (``parser.py``) produce
for a valid spec, in one pass with one compiled regular expression: the terminals of ``grammar/spec.lark``
(``NAME``, ``INT``, ``FLOAT``, ``STRING``, ``BYTES``, the operators), ``NL`` (a newline with the blank and
comment-only lines after it), ``INDENT``/``DEDENT`` from the indentation of the line after an ``NL``, no
``NL`` inside brackets, comments and ``\\``-newline continuations skipped. Keywords are not decided here:
every word is a ``NAME`` token and the parser (:mod:`evalgap.specs_lang.fastparse`) decides from its position
whether it is a keyword, as lark's contextual lexer does. A few tokens are lexed differently where lark's
lexer only accepts some terminals (``R-1.5`` is ``INT . INT`` in a requirement ID, ``a/b.py`` one path after
``target:``, ``andy`` is ``and y`` where no name may follow); :func:`relex` re-lexes those in place.

Any text this lexer cannot handle raises :class:`Reject`: the caller then runs the lark parser, the
normative one, which accepts the text or reports the error with its diagnostics.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["Reject", "Tok", "tokenize", "relex", "K", "V", "OFF", "LINE", "COL", "ELINE", "ECOL"]

#: A token: (kind, text, offset, line, column, end line, end column); lines and columns 1-based as in lark,
#: end exclusive. ``kind`` is ``NAME``, ``INT``, ``FLOAT``, ``STRING``, ``BYTES``, ``PATHLIKE``, ``NL``,
#: ``INDENT``, ``DEDENT``, ``EOF`` or the operator itself (``(``, ``==>`` ...). ``INDENT``/``DEDENT`` carry the
#: position of the ``NL`` before them (lark's ``Token.new_borrow_pos``).
Tok = tuple[str, str, int, int, int, int, int]
K, V, OFF, LINE, COL, ELINE, ECOL = 0, 1, 2, 3, 4, 5, 6


class Reject(Exception):
    """The fast path cannot handle this text (a syntax error, or a case left to the lark parser)."""


_NL = r"(?P<NL>(?:\r?\n[\t ]*(?:\#[^\n]*)?)+)"
_BYTES = r"""(?P<BYTES>b"(?:[^"\\\n]|\\.)*"|b'(?:[^'\\\n]|\\.)*')"""
_NAME = r"(?P<NAME>[A-Za-z_][A-Za-z0-9_]*)"
_FLOAT = r"(?P<FLOAT>[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)"
_INT = r"(?P<INT>0|[1-9][0-9_]*)"
_STRING = r"""(?P<STRING>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
_OP = r"(?P<OP><==>|==>|\*\*|//|\.\.|->|==|>=|<=|!=|[<>=+\-*/%()\[\]{},:.])"
_SKIP = r"(?P<COMMENT>\#[^\n]*)|(?P<CONT>\\[\t \f]*\r?\n)"
_PATH = r"(?P<PATHLIKE>[A-Za-z0-9_.\/-]+\.py(?![A-Za-z0-9_]))"


def _master(*alts: str) -> re.Pattern[str]:
    return re.compile(r"[\t \f]*(?:" + "|".join(alts) + ")")


#: Lark's terminal priorities: BYTES and FLOAT (2) before NAME and INT; PATHLIKE (3) only after ``target:``.
MASTER: Final = _master(_NL, _BYTES, _NAME, _FLOAT, _INT, _STRING, _OP, _SKIP)
#: Inside a requirement ID lark's lexer accepts INT but not FLOAT (``R-1.5`` is ``R - 1 . 5``).
NO_FLOAT: Final = _master(_NL, _BYTES, _NAME, _INT, _STRING, _OP, _SKIP)
#: After ``target:`` a file path is one token.
PATH_FIRST: Final = _master(_PATH, _NL, _BYTES, _NAME, _FLOAT, _INT, _STRING, _OP, _SKIP)

_OPEN: Final = frozenset("([{")
_CLOSE: Final = frozenset(")]}")
TAB_LEN: Final = 8


def tokenize(src: str) -> list[Tok]:
    """Tokens of ``src`` (which ends with a newline), then the closing ``DEDENT`` tokens and ``EOF``.

    Args:
        src: the whole spec text, ending in ``\\n`` (``parse`` appends one).

    Returns:
        The token list; every ``NL`` outside brackets is followed by its ``INDENT`` or ``DEDENT`` tokens.

    Raises:
        Reject: a character no token starts with, an unbalanced closing bracket, or a dedent to a column
            no enclosing block has (lark reports these: EG102, EG101, EG103).
    """
    toks: list[Tok] = []
    append = toks.append
    line, ls, depth, expect = 1, 0, 0, 0
    levels = [0]
    last: Tok | None = None
    for m in MASTER.finditer(src):
        if m.start() != expect:
            raise Reject("unexpected character")
        kind = m.lastgroup
        assert kind is not None
        s, e = m.span(kind)
        expect = m.end()
        if kind == "NAME":
            last = ("NAME", m.group(kind), s, line, s - ls + 1, line, e - ls + 1)
            append(last)
        elif kind == "OP":
            val = m.group(kind)
            if val in _OPEN:
                depth += 1
            elif val in _CLOSE:
                depth -= 1
                if depth < 0:
                    raise Reject("unbalanced bracket")
            last = (val, val, s, line, s - ls + 1, line, e - ls + 1)
            append(last)
        elif kind == "NL":
            val = m.group(kind)
            nl_line, col = line, s - ls + 1
            cut = val.rfind("\n")
            line += val.count("\n")
            ls = s + cut + 1
            last = ("NL", val, s, nl_line, col, line, e - ls + 1)
            if depth:
                continue
            append(last)
            indent_str = val[cut + 1:]
            if "#" in indent_str:  # a comment-only last line: its indentation does not count (parser.py)
                indent_str = indent_str.split("#", 1)[0]
            indent = indent_str.count(" ") + indent_str.count("\t") * TAB_LEN
            if indent > levels[-1]:
                levels.append(indent)
                append(("INDENT",) + last[1:])
            elif indent < levels[-1]:
                while indent < levels[-1]:
                    levels.pop()
                    append(("DEDENT",) + last[1:])
                if indent != levels[-1]:
                    raise Reject("dedent to no enclosing block")
        elif kind == "COMMENT":
            continue
        elif kind == "CONT":
            line += 1
            ls = e
        else:  # INT FLOAT STRING BYTES
            last = (kind, m.group(kind), s, line, s - ls + 1, line, e - ls + 1)
            append(last)
    if expect != len(src):
        raise Reject("unexpected character")
    if len(levels) > 1:
        if last is None:  # pragma: no cover - an indent needs an NL token
            raise Reject("no token")
        toks.extend([("DEDENT",) + last[1:]] * (len(levels) - 1))
    toks.append(("EOF", "", len(src), line, len(src) - ls + 1, line, len(src) - ls + 1))
    return toks


def relex(src: str, toks: list[Tok], i: int, cut: int, first_kind: str, pattern: re.Pattern[str] = MASTER) -> None:
    """Re-lex token ``i`` in place from ``cut`` characters into it, the way lark's contextual lexer does where
    only some terminals are acceptable.

    The first ``cut`` characters become a token of kind ``first_kind`` (``cut`` may be 0: nothing is kept);
    the text after them is lexed again with ``pattern`` until a new token ends where an old one ended, and the
    new tokens replace the old ones. Examples: ``andy`` after an operand (``and`` + ``y``), ``b"x"`` where
    only a name may stand (``b`` + ``"x"``), ``1.5`` in a requirement ID (``NO_FLOAT``: ``1 . 5``), a path
    after ``target:`` (``PATH_FIRST``).

    Raises:
        Reject: the new tokens do not line up with the old ones on the same line.
    """
    tok = toks[i]
    off, line = tok[OFF], tok[LINE]
    ls = off - tok[COL] + 1
    new: list[Tok] = []
    if cut:
        new.append((first_kind, tok[V][:cut], off, line, tok[COL], line, tok[COL] + cut))
    pos = off + cut
    ends = {t[OFF] + len(t[V]): j for j, t in enumerate(toks[i:i + 64], i)
            if t[K] not in ("NL", "INDENT", "DEDENT", "EOF")}
    while True:
        if pos in ends and pos > off:
            toks[i:ends[pos] + 1] = new
            return
        m = pattern.match(src, pos)
        if m is None:
            raise Reject("relex")
        kind = m.lastgroup
        if kind in (None, "NL", "COMMENT", "CONT"):
            raise Reject("relex")
        assert kind is not None
        s, e = m.span(kind)
        val = m.group(kind)
        new.append((val if kind == "OP" else kind, val, s, line, s - ls + 1, line, e - ls + 1))
        pos = e
