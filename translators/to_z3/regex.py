"""Python ``re`` patterns to Z3 regular expressions, for the subset where the two agree exactly.

The subset (anything else raises :class:`~evalgap.translators.errors.UnsupportedConstruct`, so the
requirement is ``unknown`` for the analysis, never a wrong finding):

* literal characters (any code point up to U+2FFFF, Z3's largest character) other than the specials
  ``.^$*+?{}[]()|\\``; escaped punctuation (``\\.``, ``\\-``, ``\\\\`` ...) and ``\\n \\t \\r \\f \\v``;
* ``.`` (any character except ``\\n``: the pattern takes no flags);
* classes ``[a-z0-9-]`` and negated classes ``[^...]`` of literal characters and ranges (``-`` literal
  only first or last; a class starting with ``]``, holding ``[`` or a doubled ``&&``/``--``/``||``/``~~``
  is outside the subset);
* ``*``, ``+``, ``?``, ``{m}``, ``{m,}``, ``{,n}``, ``{m,n}`` (bounds up to 200), each optionally lazy
  (``*?``: the same language); possessive forms (``*+``) are outside;
* ``|``, groups ``(...)``, ``(?:...)``, ``(?P<name>...)``;
* ``^`` as the first and ``$`` as the last character of a pattern without a top-level ``|``.

Not in the subset: ``\\d \\w \\s \\b`` (Unicode-aware in Python), back-references, look-arounds, inline
flags, ``re`` flag arguments, a pattern that is not a string literal. ``re.fullmatch(p, s)`` is
``s ∈ L(p)``; ``re.match`` is ``s ∈ L(p)·Σ*``; ``re.search`` is ``s ∈ Σ*·L(p)·Σ*``; a final ``$`` lets
``match``/``search`` end before one trailing ``\\n`` (Python's rule) and is a no-op for ``fullmatch``.

Unicode: literals and ranges compare code points in both; Z3's strings hold characters up to U+2FFFF,
so a pattern naming a larger code point is outside the subset, and strings with such characters are
not among the values the analysis considers (true of every ``str`` in the Z3 fragment).
"""

from __future__ import annotations

import re as _re
from dataclasses import dataclass

import z3

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_z3.types import Ty

__all__ = ["pattern_re", "re_call_term", "MATCH", "MAX_CHAR", "MAX_REPEAT"]

#: The type of ``re.fullmatch(...)``'s value: its Z3 term is the Bool "the result is not None" (a Match
#: object or None; only its truth value and ``is None``/``is not None`` are in the fragment).
MATCH = Ty("match")

#: Z3's largest character (its ``unicode`` encoding).
MAX_CHAR = 0x2FFFF
#: The largest ``{m,n}`` bound translated (larger ones are outside the subset).
MAX_REPEAT = 200

_SPECIAL = set(".^$*+?{}[]()|\\")
_CONTROL = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_QUANT = _re.compile(r"\{(\d*)(,?)(\d*)\}")
_RESORT = z3.ReSort(z3.StringSort())


class _Unsupported(Exception):
    """A pattern outside the subset (reason in args[0])."""


@dataclass
class _Parser:
    src: str
    pos: int = 0

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.src[i] if i < len(self.src) else ""

    def take(self) -> str:
        c = self.peek()
        self.pos += 1
        return c

    # alternation := seq ('|' seq)*
    def alternation(self) -> z3.ReRef:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.take()
            branches.append(self.sequence())
        return branches[0] if len(branches) == 1 else z3.Union(*branches)

    def sequence(self) -> z3.ReRef:
        parts: list[z3.ReRef] = []
        while self.peek() not in ("", "|", ")"):
            parts.append(self.quantified(self.atom()))
        if not parts:
            return z3.Re(z3.StringVal(""))
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)

    def quantified(self, r: z3.ReRef) -> z3.ReRef:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.take()
            r = z3.Star(r) if c == "*" else z3.Plus(r) if c == "+" else z3.Option(r)
        elif c == "{":
            m = _QUANT.match(self.src, self.pos)
            if m is None or (not m.group(1) and not m.group(3)) or (not m.group(2) and not m.group(1)):
                raise _Unsupported("`{` that is not a repetition `{m}`, `{m,}`, `{,n}` or `{m,n}`")
            lo = int(m.group(1) or 0)
            hi = int(m.group(3)) if m.group(3) else (lo if not m.group(2) else None)
            if lo > MAX_REPEAT or (hi is not None and hi > MAX_REPEAT):
                raise _Unsupported(f"a repetition bound above {MAX_REPEAT}")
            if hi is not None and hi < lo:
                raise _Unsupported("a repetition {m,n} with n < m (an error in Python)")
            self.pos = m.end()
            if hi is None:
                r = z3.Concat(z3.Loop(r, lo, lo), z3.Star(r)) if lo else z3.Star(r)
            else:
                r = z3.Loop(r, lo, hi) if hi else z3.Re(z3.StringVal(""))
        else:
            return r
        if self.peek() == "?":  # lazy: the same language
            self.take()
        if self.peek() in ("*", "+", "?", "{"):
            raise _Unsupported("a repetition of a repetition (possessive or an error in Python)")
        return r

    def atom(self) -> z3.ReRef:
        c = self.take()
        if c == ".":
            return z3.Intersect(z3.AllChar(_RESORT), z3.Complement(z3.Re(z3.StringVal("\n"))))
        if c == "[":
            return self.char_class()
        if c == "(":
            if self.peek() == "?":
                if self.src.startswith("?:", self.pos):
                    self.pos += 2
                else:
                    m = _re.compile(r"\?P<[A-Za-z_][A-Za-z0-9_]*>").match(self.src, self.pos)
                    if m is None:
                        raise _Unsupported("a group extension `(?...)` other than `(?:` and `(?P<name>`")
                    self.pos = m.end()
            inner = self.alternation()
            if self.take() != ")":
                raise _Unsupported("an unbalanced `(`")
            return inner
        if c == "\\":
            return z3.Re(z3.StringVal(self.escape()))
        if c in _SPECIAL:
            raise _Unsupported(f"`{c}` at this position")
        return z3.Re(z3.StringVal(_literal(c)))

    def escape(self) -> str:
        e = self.take()
        if e == "":
            raise _Unsupported("a trailing backslash")
        if e in _CONTROL:
            return _CONTROL[e]
        if e.isascii() and not e.isalnum():
            return e
        raise _Unsupported(f"the escape `\\{e}`")

    def class_char(self) -> str:
        c = self.take()
        if c == "":
            raise _Unsupported("an unterminated `[`")
        if c == "\\":
            return self.escape()
        if c == "[":
            raise _Unsupported("`[` inside a class")
        if c in "&-|~" and self.peek() == c:
            raise _Unsupported(f"`{c}{c}` inside a class (reserved for set operations)")
        return _literal(c)

    def char_class(self) -> z3.ReRef:
        negate = self.peek() == "^"
        if negate:
            self.take()
        if self.peek() == "]":
            raise _Unsupported("a class starting with `]`")
        items: list[z3.ReRef] = []
        first = True
        while True:
            if self.peek() == "":
                raise _Unsupported("an unterminated `[`")
            if self.peek() == "]":
                self.take()
                break
            if self.peek() == "-" and not first and self.peek(1) != "]":
                raise _Unsupported("`-` inside a class that is neither first, last nor a range")
            lo = self.class_char()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.take()
                hi = self.class_char()
                if ord(hi) < ord(lo):
                    raise _Unsupported("a bad character range (an error in Python)")
                if self.peek() == "-" and self.peek(1) != "]":
                    raise _Unsupported("a range followed by `-`")
                items.append(z3.Range(z3.StringVal(lo), z3.StringVal(hi)))
            else:
                items.append(z3.Re(z3.StringVal(lo)))
            first = False
        union = items[0] if len(items) == 1 else z3.Union(*items)
        if negate:
            return z3.Intersect(z3.AllChar(_RESORT), z3.Complement(union))
        return union


def _literal(c: str) -> str:
    if ord(c) > MAX_CHAR:
        raise _Unsupported(f"a character above U+{MAX_CHAR:X} (Z3's largest)")
    return c


def pattern_re(pattern: str, mode: str = "fullmatch") -> z3.ReRef:
    """The Z3 regular expression of the strings ``s`` for which ``re.<mode>(pattern, s)`` is not None.

    Args:
        pattern: a Python ``re`` pattern in the subset of the module docstring.
        mode: ``fullmatch``, ``match`` or ``search``.

    Raises:
        UnsupportedConstruct: the pattern is outside the subset (the message says which part).

    >>> import z3
    >>> s = z3.Solver(); s.add(z3.InRe(z3.StringVal("a-1"), pattern_re("[a-z0-9-]+"))); s.check()
    sat
    """
    if mode not in ("fullmatch", "match", "search"):
        raise UnsupportedConstruct(f"re.{mode}()", A.NOSPAN)
    body, start, end = pattern, False, False
    if body.startswith("^"):
        body, start = body[1:], True
    if body.endswith("$") and not body.endswith("\\$"):
        body, end = body[:-1], True
    try:
        p = _Parser(body)
        core = p.alternation()
        if p.pos != len(body):
            raise _Unsupported("an unbalanced `)`")
        if (start or end) and _has_top_level_bar(body):
            raise _Unsupported("`^`/`$` with a top-level `|`")
    except _Unsupported as exc:
        raise UnsupportedConstruct(f"the regular expression {pattern!r} ({exc})", A.NOSPAN) from None
    anything = z3.Star(z3.AllChar(_RESORT))
    parts = [core]
    if mode == "search" and not start:
        parts.insert(0, anything)
    if mode != "fullmatch":
        parts.append(z3.Option(z3.Re(z3.StringVal("\n"))) if end else anything)
    return parts[0] if len(parts) == 1 else z3.Concat(*parts)


def _has_top_level_bar(body: str) -> bool:
    depth, i, in_class = 0, 0, False
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if body[i + 1:i + 2] == "^":
                i += 1
            if body[i + 1:i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def re_call_term(func: str, pattern: A.Expr, subject: z3.ExprRef, span: A.Span) -> z3.BoolRef:
    """``re.<func>(pattern, subject) is not None`` as a Z3 formula over the string term ``subject``.

    Raises:
        UnsupportedConstruct: ``func`` is not ``fullmatch``/``match``/``search``, the pattern is not a
            string literal, or it is outside the subset.
    """
    if func not in ("fullmatch", "match", "search"):
        raise UnsupportedConstruct(f"re.{func}()", span)
    if not (isinstance(pattern, A.Const) and isinstance(pattern.value, str)):
        raise UnsupportedConstruct(f"re.{func}() with a pattern that is not a string literal", span)
    try:
        r = pattern_re(pattern.value, func)
    except UnsupportedConstruct as exc:
        raise UnsupportedConstruct(exc.construct, span) from None
    return z3.InRe(subject, r)
