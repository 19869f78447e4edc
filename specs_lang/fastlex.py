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

import bisect
import itertools
import operator
import re
from typing import Final, Iterator

__all__ = ["Reject", "Tok", "Tokens", "Lines", "tokenize", "chunks", "CHUNK", "relex", "is_float", "K", "V", "END"]

#: A token: (kind, text, offset of its END in the source; it starts at ``end - len(text)``). ``kind`` is
#: ``NAME`` (every word), ``NUM`` (an INT or a FLOAT: see :func:`is_float`), ``STRING``, ``BYTES``,
#: ``PATHLIKE``, ``NL``, ``INDENT``, ``DEDENT``, ``EOF`` or the operator itself (``(``, ``==>`` ...).
#: ``INDENT``/``DEDENT`` repeat the text and end of the ``NL`` before them (lark's ``Token.new_borrow_pos``).
#: Lines and columns are not in the token: :func:`tokenize` returns them in two lists parallel to the tokens
#: (:data:`Tokens`).
Tok = tuple[str, str, int]
#: (tokens, line, before): ``line[k]`` is the 1-based line of token ``k`` and ``before[k]`` the offset of that
#: line's first character minus one, so the column of an offset ``o`` on that line is ``o - before[k]``. For
#: ``NL``, ``INDENT``, ``DEDENT`` and ``EOF`` tokens they are those of the token's END (after the newlines and
#: the next line's indentation: where a clause's span ends); every other token ends on the line it starts on.
#: Built one line at a time (a list repeat per line), so a span costs four list look-ups, not a search.
Tokens = tuple[list[Tok], list[int], list[int]]
K, V, END = 0, 1, 2


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
#: The same terminals as MASTER, each with the blanks before it, without groups: ``findall`` cuts the whole
#: text at C speed. Most frequent first where the order does not matter (BYTES before NAME and FLOAT before
#: INT do matter).
_PIECES: Final = re.compile(r"[\t \f]*+(?:" + "|".join(re.sub(r"\(\?P<\w+>", "(?:", alt) for alt in (
    _BYTES, r"[A-Za-z_][A-Za-z0-9_]*+", _OP, _NL, _FLOAT, _INT, _STRING, _SKIP)) + ")")
_BLANKS: Final = " \t\f"

_OPS: Final = {op: op for op in "<==> ==> ** // .. -> == >= <= != < > = + - * / % ( ) [ ] { } , : .".split()}
_DEPTH: Final = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_KEEP: Final = {"COMMENT": False}
#: Pieces holding newlines (a STRING, BYTES or COMMENT cannot): lines are counted at these only.
_BREAKS: Final = frozenset(("NL", "CONT"))
TAB_LEN: Final = 8


class _PrefixKinds(dict[str, str]):
    """The kind of a piece from its first two characters (the operators are looked up whole before)."""

    def __missing__(self, two: str) -> str:
        c = two[0]
        if c in " \t\f":
            kind = "WS"
        elif c in "\r\n":
            kind = "NL"
        elif c == "b" and two[1:] in ("'", '"'):
            kind = "BYTES"
        elif c.isalpha() or c == "_":
            kind = "NAME"
        elif c.isdigit():
            kind = "NUM"
        elif c in "'\"":
            kind = "STRING"
        elif c == "#":
            kind = "COMMENT"
        else:
            kind = "CONT"  # a backslash: the only other way a piece starts
        self[two] = kind
        return kind


_KINDS: Final = _PrefixKinds()
_TWO: Final = operator.itemgetter(slice(0, 2))


def is_float(text: str) -> bool:
    """Whether a ``NUM`` token is a FLOAT (``1.5``, ``1e5``) rather than an INT."""
    return "." in text or "e" in text or "E" in text


class Lines:
    """Line starts of a text: offsets -> lark's 1-based line and column."""

    def __init__(self, src: str) -> None:
        self.starts = list(itertools.accumulate(map((1).__add__, map(len, src.split("\n"))), initial=0))

    def pos(self, off: int) -> tuple[int, int]:
        """(line, column) of the character at ``off`` (or of the position just after the text)."""
        line = bisect.bisect_right(self.starts, off)
        return line, off - self.starts[line - 1] + 1


#: Characters per chunk of :func:`chunks` (about 70 requirements): the tokens of one chunk stay in the CPU's
#: caches while it is parsed, and their memory is reused by the next chunk.
CHUNK = 16_384
#: A place to cut the text into chunks: after a newline, before a line starting a top-level declaration (so
#: not before a blank, a comment or a continuation: every chunk but the first starts with a token).
_CUT: Final = re.compile(r"\n(?=[^\s#\\])")


class _BadCut(Exception):
    """A chunk would end inside brackets or a continuation: cut at a later line."""


def chunks(src: str) -> Iterator[Tokens]:
    """The :data:`Tokens` of ``src`` (which ends with a newline) in chunks of about :data:`CHUNK` characters,
    tokenized one at a time as the parser asks for them.

    Each chunk but the last ends after the newline before a line that starts at column 0 with a word (a
    top-level declaration), outside brackets, so that its last ``NL`` closes every block (its ``DEDENT``
    tokens) and no construct spans two chunks; each ends with its own ``EOF``. The tokens, offsets and lines
    are those :func:`tokenize` gives for the whole text.

    Raises:
        Reject: as :func:`tokenize`.
    """
    start, line, size = 0, 1, len(src)
    while True:
        cut = _CUT.search(src, start + CHUNK) if start + CHUNK < size else None
        while cut is not None:
            try:
                tokens = tokenize(src, start, cut.end(), line, last=False)
                break
            except _BadCut:  # try a chunk twice as long (a long bracket costs O(n log n), not O(n**2))
                cut = _CUT.search(src, start + 2 * (cut.end() - start))
        if cut is None:
            yield tokenize(src, start, size, line)
            return
        yield tokens
        start, line = cut.end(), tokens[1][-1]


def tokenize(src: str, start: int = 0, stop: int | None = None, line: int = 1, last: bool = True) -> Tokens:
    """Tokens of ``src[start:stop]`` (which starts a line and ends with a newline), then the closing ``DEDENT``
    tokens and ``EOF``, with the line and line start of each token.

    The text is cut into pieces by one regular expression (``findall``, at C speed); kinds, offsets and
    bracket depths are computed with ``map``/``accumulate``; only the newlines are looked at one by one
    (lines, indentation, and no ``NL`` inside brackets). Equal pieces share one string object.

    Args:
        src: the whole spec text, ending in ``\\n`` (``parse`` appends one); offsets are into it.
        start, stop: the part to tokenize (default: all of it); ``line``: the line ``start`` is on.
        last: whether the part ends the text; if not, it must end outside brackets and continuations
            (else :class:`_BadCut`).

    Returns:
        :data:`Tokens`: the token list, where every ``NL`` outside brackets is followed by its ``INDENT`` or
        ``DEDENT`` tokens, and the line and line-start lists parallel to it.

    Raises:
        Reject: a character no token starts with, an unbalanced closing bracket, or a dedent to a column
            no enclosing block has (lark reports these: EG102, EG101, EG103).
    """
    # One string object per distinct piece (a spec repeats its words: 10,000 requirements have ~15,000
    # distinct pieces in 750,000): less memory for the tokens and the AST's names, and every later hash of a
    # piece is cached. The kind is computed once per distinct piece.
    stop = len(src) if stop is None else stop
    raw = _PIECES.findall(src, start, stop)
    distinct: dict[str, str] = {}
    pieces = list(map(distinct.setdefault, raw, raw))
    del raw
    ends = list(itertools.accumulate(map(len, pieces), initial=start))
    del ends[0]
    if (ends[-1] if ends else start) != stop:
        raise Reject("unexpected character")
    # a piece is the blanks before a token and the token: its text and kind, once per distinct piece
    text_of = dict(zip(distinct, map(str.lstrip, distinct, itertools.repeat(_BLANKS))))
    texts = text_of.values()
    kind_of = dict(zip(distinct, map(_OPS.get, texts, map(_KINDS.__getitem__, map(_TWO, texts)))))
    kinds = list(map(kind_of.__getitem__, pieces))
    flat = list(zip(kinds, map(text_of.__getitem__, pieces), ends))
    if "COMMENT" in kind_of.values():
        keep = map(_KEEP.get, kinds, itertools.repeat(True))
        flat = list(itertools.compress(flat, keep))
        kinds = list(map(operator.itemgetter(0), flat))
    if not last and (not kinds or kinds[-1] != "NL"):
        raise _BadCut
    return _layout(flat, kinds, stop, "CONT" in kind_of.values(), line, start - 1, last)


def _indent(nl: str) -> int:
    """The indentation an NL token leaves: spaces count 1, tabs 8 (as lark's Indenter, ``tab_len = 8``)."""
    indent_str = nl[nl.rfind("\n") + 1:]
    if "#" in indent_str:  # a comment-only last line: its indentation does not count (larkparse.py)
        indent_str = indent_str.split("#", 1)[0]
    return indent_str.count(" ") + indent_str.count("\t") * TAB_LEN


def _breaks(kinds: list[str], conts: bool) -> Iterator[int]:
    """Indices of the ``NL`` (and, when ``conts``, ``CONT``) tokens, in order: ``list.index`` from one to the
    next (a C scan over a dozen tokens) rather than a test per token."""
    if conts:
        yield from itertools.compress(itertools.count(), map(_BREAKS.__contains__, kinds))
        return
    find = kinds.index
    j = -1
    try:
        while True:
            j = find("NL", j + 1)
            yield j
    except ValueError:
        return


def _layout(flat: list[Tok], kinds: list[str], size: int, conts: bool, line: int, before: int,
            last: bool) -> Tokens:
    """Drop ``NL`` inside brackets and the ``CONT`` pieces, add ``INDENT``/``DEDENT`` after the other ``NL``
    and ``EOF`` at the end (at offset ``size``); count the lines from ``line`` (whose start is ``before + 1``).
    ``kinds`` are the kinds of ``flat``; ``conts`` says whether there is any ``CONT`` (a backslash
    continuation); ``last``: see :func:`tokenize`.

    The line and line start lists are built at the end from runs (one per line: its count of tokens), so
    that only the token list grows while the newlines are walked."""
    depth = list(itertools.accumulate(map(_DEPTH.get, kinds, itertools.repeat(0))))
    if depth and min(depth) < 0:
        raise Reject("unbalanced bracket")
    if not last and depth[-1]:
        raise _BadCut
    toks: list[Tok] = []
    run_sizes: list[int] = []  # runs of tokens with the same line and line start
    run_lines: list[int] = []
    run_befores: list[int] = []
    levels = [0]
    indents: dict[str, int] = {}
    prev = 0
    run = 0
    first_line, first_before = line, before
    for j in _breaks(kinds, conts):
        if j > prev:
            toks += flat[prev:j]
            run += j - prev
        prev = j + 1
        nl = flat[j]
        text = nl[1]
        run_sizes.append(run)
        run_lines.append(line)
        run_befores.append(before)
        run = 0
        line += text.count("\n")
        before = nl[2] - len(text) + text.rfind("\n")
        if depth[j] or nl[0] == "CONT":
            continue
        toks.append(nl)
        run = 1
        indent = indents.get(text)
        if indent is None:
            indent = indents[text] = _indent(text)
        if indent > levels[-1]:
            levels.append(indent)
            toks.append(("INDENT", text, nl[2]))
            run = 2
        elif indent < levels[-1]:
            while indent < levels[-1]:
                levels.pop()
                toks.append(("DEDENT", text, nl[2]))
                run += 1
            if indent != levels[-1]:
                raise Reject("dedent to no enclosing block")
    if len(flat) > prev:
        toks += flat[prev:]
        run += len(flat) - prev
    run_sizes.append(run)
    run_lines.append(line)
    run_befores.append(before)
    if len(levels) > 1:  # the closing DEDENTs repeat the last token but a CONT (usually the last NL)
        last_line, last_before = line, before
        k = len(flat) - 1
        if conts and flat[k][0] == "CONT":
            while flat[k][0] == "CONT":
                k -= 1
            last_line, col = _end_pos(flat[k], flat, first_line, first_before)
            last_before = flat[k][2] - col
        borrowed = flat[k]
        toks += [("DEDENT", borrowed[1], borrowed[2])] * (len(levels) - 1)
        run_sizes.append(len(levels) - 1)
        run_lines.append(last_line)
        run_befores.append(last_before)
    toks.append(("EOF", "", size))
    run_sizes.append(1)
    run_lines.append(line)
    run_befores.append(before)
    lines = list(itertools.chain.from_iterable(map(itertools.repeat, run_lines, run_sizes)))
    befores = list(itertools.chain.from_iterable(map(itertools.repeat, run_befores, run_sizes)))
    return toks, lines, befores


def _end_pos(tok: Tok, flat: list[Tok], line: int, before: int) -> tuple[int, int]:
    """(line, column) of the end of ``tok``, one of ``flat`` (a rare case: counted from the start of ``flat``,
    on ``line``, whose start is ``before + 1``)."""
    for t in flat:
        if t[2] - len(t[1]) >= tok[2]:
            break
        if t[0] in _BREAKS:
            line += t[1].count("\n")
            before = t[2] - len(t[1]) + t[1].rfind("\n")
    return line, tok[2] - before


def relex(src: str, tokens: Tokens, i: int, cut: int, first_kind: str, pattern: re.Pattern[str] = MASTER) -> None:
    """Re-lex token ``i`` in place from ``cut`` characters into it, the way lark's contextual lexer does where
    only some terminals are acceptable.

    The first ``cut`` characters become a token of kind ``first_kind`` (``cut`` may be 0: nothing is kept);
    the text after them is lexed again with ``pattern`` until a new token ends where an old one ended, and the
    new tokens replace the old ones. Examples: ``andy`` after an operand (``and`` + ``y``), ``b"x"`` where
    only a name may stand (``b`` + ``"x"``), ``1.5`` in a requirement ID (``NO_FLOAT``: ``1 . 5``), a path
    after ``target:`` (``PATH_FIRST``).

    Args:
        src: the text; tokens: its :data:`Tokens` (all three lists are edited); i: the token's index.

    Raises:
        Reject: the new tokens do not line up with the old ones on the same line.
    """
    toks, lines, befores = tokens
    tok = toks[i]
    off = tok[2] - len(tok[1])
    new: list[Tok] = [(first_kind, tok[1][:cut], off + cut)] if cut else []
    pos = off + cut
    ends = {t[2]: j for j, t in enumerate(toks[i:i + 64], i)
            if t[0] not in ("NL", "INDENT", "DEDENT", "EOF")}
    while True:
        if pos in ends and pos > off:
            k = ends[pos] + 1  # every new token is on token i's line (a newline rejects, below)
            toks[i:k] = new
            lines[i:k] = [lines[i]] * len(new)
            befores[i:k] = [befores[i]] * len(new)
            return
        m = pattern.match(src, pos)
        kind = m.lastgroup if m else None
        if kind is None or kind in ("NL", "COMMENT", "CONT"):
            raise Reject("relex")
        assert m is not None
        val = m.group(kind)
        new.append((val if kind == "OP" else "NUM" if kind in ("INT", "FLOAT") else kind, val, m.end(kind)))
        pos = m.end()
