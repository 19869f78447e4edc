"""``re`` in clauses translated to Z3 regular expressions (translators/to_z3/regex.py): a differential test
against CPython's ``re`` for generated patterns of the documented subset and generated strings (ASCII and
a few non-ASCII code points, line separators included), the patterns outside the subset, and the analysis
of a spec using ``re.fullmatch``."""

from __future__ import annotations

import re
from typing import Any

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgap.specs_lang import parse
from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_z3 import build_function_models
from evalgap.translators.to_z3.regex import MAX_CHAR, pattern_re

#: Literal characters of the generated patterns and strings: ASCII, a Latin-1 letter, a non-BMP-adjacent
#: CJK character, Python's other line separators (``.`` excludes only ``\n`` in both).
ALPHABET = "ab0-.\n\r é中\u2028]"
_SPECIAL = set(".^$*+?{}[]()|\\-")


def _lit(c: str) -> str:
    return "\\" + c if c in _SPECIAL else c


def _class_char(c: str) -> str:
    return "\\" + c if c in "]\\^-[" else c


@st.composite
def _char_class(draw: Any) -> str:
    items = []
    for _ in range(draw(st.integers(1, 3))):
        a = draw(st.sampled_from(ALPHABET))
        if draw(st.booleans()):
            b = draw(st.sampled_from(ALPHABET))
            lo, hi = sorted((a, b), key=ord)
            items.append(_class_char(lo) + "-" + _class_char(hi))
        else:
            items.append(_class_char(a))
    neg = "^" if draw(st.booleans()) else ""
    dash = "-" if draw(st.integers(0, 4)) == 0 else ""  # a literal `-` last
    return "[" + neg + "".join(items) + dash + "]"


_ATOMS = st.one_of(st.sampled_from(ALPHABET).map(_lit), st.just("."), _char_class())
_QUANTS = st.sampled_from(["", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{1,2}", "{,2}", "{1,}", "{0,3}"])


def _regex(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _ATOMS
    inner = _regex(depth - 1)
    group = st.tuples(st.sampled_from(["(", "(?:", "(?P<g>"]), st.lists(inner, min_size=0, max_size=3),
                      st.lists(inner, max_size=2)).map(
        lambda t: t[0] + "".join(t[1]) + ("|" + "".join(t[2]) if t[2] else "") + ")")
    return st.one_of(_ATOMS, group)


@st.composite
def patterns(draw: Any) -> str:
    """A pattern of the subset (possibly anchored with ``^``/``$`` when it has no top-level ``|``)."""
    parts = draw(st.lists(st.tuples(_regex(2), _QUANTS).map("".join), min_size=0, max_size=4))
    body = "".join(parts)
    if draw(st.integers(0, 3)) == 0:
        alt = "".join(draw(st.lists(st.tuples(_regex(1), _QUANTS).map("".join), max_size=2)))
        return body + "|" + alt
    return ("^" if draw(st.booleans()) else "") + body + ("$" if draw(st.booleans()) else "")


def _member(s: str, r: z3.ReRef) -> bool:
    term = z3.simplify(z3.InRe(z3.StringVal(s), r))
    if z3.is_true(term) or z3.is_false(term):
        return bool(z3.is_true(term))
    solver = z3.Solver()
    solver.add(term)
    res = solver.check()
    assert res != z3.unknown
    return bool(res == z3.sat)


def _pattern_fixes(p: str) -> str:
    # the generator's `(?P<g>` may repeat: number the groups so that CPython accepts the pattern
    k = iter(range(1000))
    return re.sub(r"\(\?P<g>", lambda _m: f"(?P<g{next(k)}>", p)


def _differential(pattern: str, strings: list[str], data: Any) -> None:
    pattern = _pattern_fixes(pattern)
    compiled = re.compile(pattern)  # every generated pattern is valid Python
    try:  # strings CPython accepts, so that the positive side is exercised too; Z3's strings hold
        # code points up to U+2FFFF only (a larger one is not a value the analysis considers)
        strings.append(data.draw(st.from_regex(compiled, fullmatch=True).filter(
            lambda x: all(ord(c) <= MAX_CHAR for c in x))))
    except Exception:  # noqa: BLE001 - from_regex may not cover a construct; the random strings remain
        pass
    for mode in ("fullmatch", "match", "search"):
        r = pattern_re(pattern, mode)
        for s in strings:
            expected = getattr(compiled, mode)(s) is not None
            assert _member(s, r) == expected, (pattern, s, mode)


_ARGS = (patterns(), st.lists(st.text(alphabet=ALPHABET, max_size=6), min_size=1, max_size=4), st.data())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(*_ARGS)
def test_z3_membership_equals_cpython(pattern: str, strings: list[str], data: Any) -> None:
    """Z3's membership equals ``re.<mode>(pattern, s) is not None`` (fast tier: 60 patterns)."""
    _differential(pattern, strings, data)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(*_ARGS)
def test_z3_membership_equals_cpython_thorough(pattern: str, strings: list[str], data: Any) -> None:
    """The same differential test over 1500 patterns (slow tier)."""
    _differential(pattern, strings, data)


@pytest.mark.parametrize("pattern, s, mode, expected", [
    ("[a-z0-9-]+", "a-1", "fullmatch", True), ("[a-z0-9-]+", "A", "fullmatch", False),
    ("([a-z0-9]+(-[a-z0-9]+)*)?", "a--b", "fullmatch", False), ("([a-z0-9]+(-[a-z0-9]+)*)?", "", "fullmatch", True),
    ("a.c", "a\nc", "fullmatch", False), ("a.c", "a\rc", "fullmatch", True), ("[^a]", "\n", "fullmatch", True),
    ("a$", "a\n", "match", True), ("a$", "a\n", "fullmatch", False), ("a$", "a\n\n", "search", False),
    ("^b", "ab", "search", False), ("b", "ab", "search", True), ("b", "ab", "match", False),
    ("x{2,3}", "xxxx", "fullmatch", False), ("x{2,}", "xxxx", "fullmatch", True), ("é+", "éé", "fullmatch", True),
])
def test_known_memberships(pattern: str, s: str, mode: str, expected: bool) -> None:
    assert (getattr(re, mode)(pattern, s) is not None) == expected  # the table states CPython's answer
    assert _member(s, pattern_re(pattern, mode)) == expected


@pytest.mark.parametrize("pattern, why", [
    (r"\d+", "escape"), (r"\w", "escape"), (r"\s", "escape"), (r"\bx", "escape"), (r"(a)\1", "escape"),
    ("(?=a)a", "group extension"), ("(?i)a", "group extension"), ("(?<=a)b", "group extension"),
    ("a*+", "repetition of a repetition"), ("a{,}", "repetition"), ("a{x}", "repetition"), ("a{3,2}", "n < m"),
    ("[]a]", "starting with `]`"), ("[a[b]", "inside a class"), ("[a&&b]", "set operations"),
    ("[a-b-c]", "followed by `-`"), ("^a|b", "top-level `|`"), ("a^b", "at this position"), ("*a", "at this position"),
    ("a{1,500}", "bound above"), ("\U00030000", "above U+2FFFF"), ("(a", "unbalanced"), ("a)", "unbalanced"),
])
def test_outside_the_subset_is_unsupported(pattern: str, why: str) -> None:
    with pytest.raises(UnsupportedConstruct) as info:
        pattern_re(pattern)
    assert why in info.value.construct


def _function_model(clause: str) -> Any:
    spec = parse(f'spec s "s"\n\nfunction slug(text: str) -> str\n  requirement R-1 "r"\n    {clause}\n')
    return build_function_models(spec)[0]


def test_clause_with_re_fullmatch_is_in_the_fragment() -> None:
    m = _function_model('ensures re.fullmatch("[a-z0-9-]+", result) is not None')
    req = m.requirements[0]
    assert req.unsupported is None and req.formula is not None
    rc = m.result[1]
    solver = z3.Solver()
    solver.add(req.formula, rc == z3.StringVal("ab-9"))
    assert solver.check() == z3.sat
    solver = z3.Solver()
    solver.add(req.formula, rc == z3.StringVal("Ab"))
    assert solver.check() == z3.unsat


@pytest.mark.parametrize("clause, construct", [
    ('ensures re.fullmatch(text, result) is not None', "not a string literal"),
    ('ensures re.fullmatch("\\\\d+", result) is not None', "escape"),
    ('ensures re.fullmatch("a", result, re.I) is not None', "flags"),
    ('ensures re.fullmatch("a", result) == re.fullmatch("a", text)', "`==`"),
    ('ensures re.findall("a", result) == []', "re.findall()"),
])
def test_re_outside_the_fragment_is_named(clause: str, construct: str) -> None:
    req = _function_model(clause).requirements[0]
    assert req.formula is None and req.unsupported is not None and construct in req.unsupported


def test_truthiness_and_is_none() -> None:
    pos = _function_model('ensures re.search("-", result)').requirements[0]
    neg = _function_model('ensures re.search("-", result) is None').requirements[0]
    assert pos.formula is not None and neg.formula is not None
    solver = z3.Solver()
    solver.add(z3.Not(pos.formula == z3.Not(neg.formula)))
    assert solver.check() == z3.unsat
