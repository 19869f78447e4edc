"""Differential tests: the fast parser (specs_lang/fastparse.py) builds exactly the lark path's AST, spans
included, and accepts exactly the texts lark accepts; parse() falls back to lark for errors and diagnostics.

Spans never take part in node equality (ast.Span.__eq__), so the comparisons here go through ``dump``,
which turns every node into nested tuples that include each span's file, line, column, end line and end
column.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgap.specs_lang import SpecError, SpecSyntaxError, parse
from evalgap.specs_lang import ast as A
from evalgap.specs_lang import fastnodes
from evalgap.specs_lang.fastlex import Reject
from evalgap.specs_lang.fastparse import parse_fast
from evalgap.specs_lang.format import format_expr, format_spec
from evalgap.specs_lang.larkparse import grammar, grammar_cache_file, parse_lark
from tests.strategies import exprs, specs

pytestmark = pytest.mark.filterwarnings("ignore:invalid escape sequence")  # literal_eval of "a\d", both paths

ROOT = Path(__file__).parents[1]
SHIPPED = sorted(p for d in ("case_studies", "specs", "tests") for p in (ROOT / d).rglob("*.req"))


def dump(node: Any) -> Any:
    """Nested tuples of a node's class, fields and spans (spans compared by value, unlike ``==``)."""
    if isinstance(node, A.Span):
        return ("Span", node.file, node.line, node.col, node.end_line, node.end_col)
    if dataclasses.is_dataclass(node):
        return (type(node).__name__,) + tuple((f.name, dump(getattr(node, f.name)))
                                              for f in dataclasses.fields(node))
    if isinstance(node, tuple):
        return tuple(dump(x) for x in node)
    return (type(node).__name__, repr(node))


def agree(text: str, file: str = "t.req") -> A.Spec | None:
    """Assert both parsers accept ``text`` with equal ASTs (spans included) or both reject it."""
    try:
        slow = parse_lark(text, file)
    except SpecError:
        slow = None
    try:
        fast = parse_fast(text, file)
    except Reject:
        fast = None
    assert (slow is None) == (fast is None), ("lark accepts, fast rejects" if fast is None
                                              else "fast accepts, lark rejects", text)
    if slow is not None:
        assert dump(fast) == dump(slow), text
    return slow


# ------------------------------------------------------------------ every shipped spec
def test_shipped_specs_are_found() -> None:
    assert len(SHIPPED) > 100 and any(p.name == "kvstore.req" for p in SHIPPED)


@pytest.mark.parametrize("path", SHIPPED[::8], ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_spec_same_ast(path: Path) -> None:
    assert agree(path.read_text(encoding="utf-8"), str(path)) is not None


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for i, p in enumerate(SHIPPED) if i % 8], ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_spec_same_ast_all(path: Path) -> None:
    assert agree(path.read_text(encoding="utf-8"), str(path)) is not None


def test_docs_examples_agree() -> None:
    """Every fenced block of docs/*.md: both parsers accept it with the same AST, or both reject it."""
    blocks = [b for md in sorted((ROOT / "docs").glob("*.md"))
              for b in re.findall(r"```(?:req)?\n(.*?)```", md.read_text(encoding="utf-8"), re.S)]
    accepted = [b for b in blocks if agree(b) is not None]
    assert len(accepted) >= 5


# ------------------------------------------------------------------ constructs, keywords in context, layout
R = 'requirement R "p"\n  '
CASES = [
    # lark's contextual lexer: a word is a keyword only where the grammar accepts that keyword ...
    R + "ensures if > 0\n", R + "ensures x.if\n", R + "ensures a and forall\n", R + "ensures x == not\n",
    R + "ensures x + forall\n", R + "ensures forall x in not forall: y\n", R + "scenario ():\n    if = 3\n    expect if\n",
    R + "scenario ():\n    a, not = 3\n", R + "ensures f(iff=1)\n", R + "ensures x.True\n",
    # ... and where no name may follow, a word starting with a keyword is split
    R + "ensures x andy\n", R + "ensures x notin y and x isnot z\n", R + "ensures x if y elsez\n", R + "ensures 1if x else 2\n",
    R + "ensures x inxs\n", R + "ensures forall x inxs: x\n", R + "ensures [x forx in y]\n", R + "ensures [x for x in y ifz]\n",
    R + 'ensures x andb"s"\n', R + "ensures x and1.5\n", R + "ensures x ornot y\n", R + "raises X.Y whenx > 0\n",
    "requirementR-1 \"x\"\n  ensures x\n", 'specx "t"\nrequirement R "p"\n  ensures 1\n', "classify\n", "letter = 5\n",
    "configc schema: a: int\n", "class C\n  methodm()\n", "stub f() -> int: oneof (1)\n",
    "function f(xs: list[int] len1..5, n: int in0..3, s: str asciidigits)\n", "function f(s: str asciiascii)\n",
    # a name where only a name is accepted: b"x" is b then "x"; INT (no FLOAT) in requirement IDs; paths
    'requirement b"x"\n  ensures x\n', R + 'informal b"r"\n', 'requirement R-1.5.2 "x"\n  ensures x\n',
    'requirement R-1e5 "x"\n  ensures x\n', 'requirement R - 1 "x"\n  ensures x\n',
    "target: a. b.py\n", "target: dir/x.py # c\n", 'target: "x y.py"\n', "target: pkg.mod\n", "target: x.pyc\n",
    "target: x.py.bak\n", "target: 1.py\n", "target: a-b/c_d.py\n",
    # expressions and their spans
    R + "ensures (a) + (b) * c ** -d\n", R + "ensures (a) ** b\n", R + "ensures a <==> b <==> c\n",
    R + "ensures a ==> b ==> c <==> d\n", R + "ensures x[:]\n", R + "ensures x[a:]\n", R + "ensures x[::]\n",
    R + "ensures x[:b:c]\n", R + "ensures {}\n", R + "ensures {a: b, c: d,}\n", R + "ensures {a, b,}\n",
    R + "ensures {a for a in b if c if d}\n", R + "ensures (a,)\n", R + "ensures ()\n", R + "ensures [a, b,]\n",
    R + "ensures f(x for x in y)\n", R + "ensures old(x for x in y)\n", R + "ensures old(x,)\n", R + "ensures old(a=1)\n",
    R + "ensures f(a=1, 2, b=x for x in y)\n", R + "ensures f(not=1)\n", R + "ensures x is nothing\n",
    R + "ensures x < y <= z != w in v not in u is t is not s\n", R + "ensures +-x.y.z(1)[2].w\n",
    R + "ensures (\n  a +\n    b)\n", R + "ensures a + \\\n  b\n", R + "ensures 1.e5 + 1_000 + 1e5 + 0.5\n",
    R + "ensures 0x10\n", R + "ensures 007\n", R + 'ensures "a\\d" + "é"\n', R + 'ensures "\\N{foo}"\n',
    R + 'ensures b"\xe9"\n', R + "example x ==>y\n", R + "example x ===>y\n", R + "example x <==y\n",
    R + "example x->y\n", R + "example 1..2\n", R + "ensures a # c\n  # d\n\n",
    # quantifiers after and / or / not / ==> / <==> (open to the right), and where they still need parentheses
    R + "ensures a and forall x in xs: p or q\n", R + "ensures not forall x in xs: p\n",
    R + "ensures a or not not exists x, y in z: x\n", R + "ensures a ==> forall x in s: x <==> y\n",
    R + "ensures {forall x in y: p: 1}\n", R + "ensures f(a and forall x in y: p, b)\n",
    R + "ensures [a and forall x in y: p for p in q]\n", R + "ensures a andforall x in y: z\n",
    R + "ensures forall x in a and forall y in b: c: d\n", R + "ensures a if b else forall x in y: z\n",
    R + "ensures x == forall x in y: x\n",
    # declarations and layout
    R + "informal trade - off \"r\"\n", R + "let x = 1\n  ensures x\n", R + "letx = 1\n",
    R + "scenario (a: int,):\n    expect raises X: f()\n    a, b = 1\n    f(x)\n    expect x\n",
    R + "scenario ():\n    expect raisesX: f()\n", "def f(x: int) -> int: x + 1\n", "def f(x: int) -> int:\n  x + 1\n",
    "record R: a: int, b: str,\n", "record R:\n  a: int,\n  b: str\n  c: None\n",
    'config c "t" schema: a: int\n  let m = 1\n  requirement R "p"\n    a > m\n', "config c schemax: a: int\n",
    "stub f() -> int: one of (any, raises X.Y, 1, )\n", "stub f() -> int: one of (any(x))\n",
    'class C\n  method m(x: int) -> int\n    requirement R "p"\n      ensures result\n  requirement I "q"\n    invariant s\n',
    "function f(a: int in -1.5..-2, b: float in 0.5..1e3, s: str chars \"ab\")\n", "function f(s: str charsx)\n",
    '\n\n# c\nspec s "t"\n  target: a.py\n  import "x.req"\n  assume A-1 "p": x > 0\n  requirement R "p"\n    ensures 1\n',
    '\n  requirement R "p"\n    ensures 1\n', '  requirement R "p"\n    ensures 1\n', 'requirement R "p"\n\tensures 1\n',
    'requirement R "p"\n\t ensures 1\n        ensures 2\n', 'requirement R "p"\n  ensures 1\n\f\n',
    'requirement R "p"\r\n  ensures 1\r\n', "", "\\\n", "# only\n", "spec s\n", 'spec s "t"\nspec t\n',
    R + "ensures (a\n", R + "ensures a)\n", "requirement R \"p\"\n  ensures 'open\n",
]


@pytest.mark.parametrize("text", CASES)
def test_constructs_agree(text: str) -> None:
    agree(text)


def test_cases_cover_both_outcomes() -> None:
    accepted = sum(agree(t) is not None for t in CASES)
    assert 80 <= accepted < len(CASES)


# ------------------------------------------------------------------ generated ASTs and mutated text
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(specs())
def test_formatted_specs_agree(spec: A.Spec) -> None:
    agree(format_spec(spec))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs())
def test_formatted_exprs_agree(e: A.Expr) -> None:
    text = format_expr(e)
    got = agree(f'requirement R-1 "p"\n  example {text}\n')
    assert got is not None and got.requirements[0].clauses[0] == A.Example(e), text


SEEDS = [p.read_text(encoding="utf-8") for p in SHIPPED[:40:2]] + [c for c in CASES if c.strip()]
PIECES = st.sampled_from(list(" \t\n\"'#()[]{}:,.-=<>!+*/%\\_0123456789abcxyzABC") + [
    "requirement ", "function ", "ensures ", "forall ", "exists ", "..", "==>", "<==>", "in ", "old(", "scenario (",
    "expect ", "raises ", "  ", "\n  ", "\n    ", "\x00", "é", "\r\n", "\f", "\\\n", "and", "or", "not", "if", "else",
    "for", "is", "b'", "1.5", "R-1.2", "target: ", "a/b.py", "len", "ascii", "when", "one of", "any", "**", "True",
    "let ", "def ", "record ", "config ", "stub ", "schema"])


def _mutate(seed: str, edits: list[tuple[int, int, str]]) -> str:
    text = seed
    for pos, cut, ins in edits:
        i = pos % (len(text) + 1)
        text = text[:i] + ins + text[i + cut:]
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 8), PIECES), min_size=1,
                                        max_size=4))
def test_mutated_text_agrees(seed: str, edits: list[tuple[int, int, str]]) -> None:
    agree(_mutate(seed, edits))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=40).map("".join))
def test_random_text_agrees(text: str) -> None:
    agree(text)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 8), PIECES), min_size=1,
                                        max_size=4))
def test_mutated_text_agrees_many(seed: str, edits: list[tuple[int, int, str]]) -> None:
    agree(_mutate(seed, edits))


# ------------------------------------------------------------------ parse(): fast path, fallback, diagnostics
def test_parse_falls_back_to_lark_for_diagnostics() -> None:
    text = 'requirement R "p"\n  ensures x ==\n'
    with pytest.raises(Reject):
        parse_fast(text)
    with pytest.raises(SpecSyntaxError) as fast_path:
        parse(text, "e.req")
    with pytest.raises(SpecSyntaxError) as lark_path:
        parse_lark(text, "e.req")
    assert fast_path.value.render() == lark_path.value.render()
    assert fast_path.value.diagnostics[0].code == "EG101" and "e.req:2:15" in fast_path.value.render()


def test_parse_of_valid_text_does_not_import_lark() -> None:
    code = ("import sys; from evalgap.specs_lang import parse; "
            "s = parse('requirement R \"p\"\\n  ensures x > 0\\n'); print(len(s.requirements), 'lark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "False"]


def test_fast_node_constructors_build_the_same_objects() -> None:
    for name in fastnodes.__all__[1:]:
        cls = getattr(A, name)
        values = [object() for _ in dataclasses.fields(cls)]
        made, plain = getattr(fastnodes, name)(*values), cls(*values)
        assert type(made) is cls and vars(made) == vars(plain), name
        assert all(getattr(made, f.name) is v for f, v in zip(dataclasses.fields(cls), values))


# ------------------------------------------------------------------ lark's grammar cache
def test_grammar_cache_file_under_evalgap_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path))
    path = grammar_cache_file()
    assert path is not None and path.parent == tmp_path / "lark" and path.name.startswith("spec-grammar-")
    (tmp_path / "blocked").write_text("a file, not a folder")
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path / "blocked"))
    assert grammar_cache_file() is None  # no cache folder: the grammar is built without cache


def test_grammar_cache_is_written_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path))
    built = grammar.__wrapped__()
    path = grammar_cache_file()
    assert path is not None and path.is_file() and path.stat().st_size > 1000
    loaded = grammar.__wrapped__()
    text = 'requirement R "p"\n  ensures a and forall x in y: x > 0\n'
    assert loaded.parse(text) == built.parse(text)
    path.write_bytes(b"garbage")  # a damaged cache is ignored (lark rebuilds the parser)
    assert grammar.__wrapped__().parse(text) == built.parse(text)


def test_truncated_stub_is_rejected_not_crashed() -> None:
    # found by the slow fuzz run: a look-ahead past the end of the tokens raised IndexError in the fast parser
    text = "stub f() -> int: one of (\n"
    with pytest.raises(Reject):
        parse_fast(text, "t.req")
    assert agree(text) is None


# ------------------------------------------------------------------ chunks (fastlex.chunks)
CHUNKED = [
    *(p.read_text(encoding="utf-8") for p in SHIPPED[::8]),
    *(c for c in CASES if c.count("\n") > 1),
    "# only a comment\n# and another\nrequirement R \"p\"\n  ensures 1\nrequirement S \"q\"\n  ensures 2\n",
    'requirement R "p"\n  ensures 1\n\\\n',  # a continuation at the end: no cut before it
    'requirement R "p"\n  ensures f(1,\n2)\nrequirement S "q"\n  ensures 2\n',  # a line at column 0 in brackets
    'requirement R "p"\n  ensures 1 + \\\n2\nrequirement S "q"\n  ensures 2\n',  # ... after a continuation
    'spec s "t"\n  target: x.py\n\nrequirement R "p"\n  ensures 1\n\n\n# c\nfunction f(x: int) -> int\n'
    '  requirement F "q"\n    ensures result > x\n',
]


@pytest.mark.parametrize("chunk", [1, 40])
def test_chunked_parse_is_the_whole_text_parse(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut into chunks at every possible line (1) or every few lines (40), the fast parser builds the AST it
    builds from the whole text (spans included), or rejects the text as it does."""
    from evalgap.specs_lang import fastlex

    def fast(text: str) -> Any:
        try:
            return dump(parse_fast(text, "t.req"))
        except Reject:
            return None

    wholes = [fast(t) for t in CHUNKED]
    assert sum(w is not None for w in wholes) >= len(CHUNKED) // 2
    monkeypatch.setattr(fastlex, "CHUNK", chunk)
    assert [fast(t) for t in CHUNKED] == wholes
    assert len(list(fastlex.chunks(CHUNKED[-1]))) == (3 if chunk == 1 else 2)


def test_deeply_nested_expression_is_a_spec_error_not_a_crash() -> None:
    """300 nested brackets exceed both parsers' recursion (the fast one falls back to lark, whose tree
    transformer overflowed): parse() raises EG106 at the deepest bracket, not RecursionError."""
    text = "spec x\n\nlet a = " + "(" * 300 + "1" + ")" * 300 + "\n"
    for fn in (parse, parse_lark):
        with pytest.raises(SpecSyntaxError) as err:
            fn(text, "t.req")
        diag = err.value.diagnostics[0]
        assert (diag.code, diag.span.line, diag.span.col) == ("EG106", 3, 308)


def test_adversarial_layout_over_chunk_boundaries_agrees() -> None:
    """A >16 KB spec with CRLF, form feeds, trailing blanks, column-0 comments inside blocks, column-0 lines
    inside brackets and after a continuation, and a syntax error after the first chunk: same AST or error."""
    block = ('requirement R-{i} "Prose \u00e9 {i}."\r\n  requires (a,\r\nb) == (1, 2) and \\\r\nc\f \r\n'
             '# col0\r\n  ensures len([x,\r\ny]) >= 0 and b"\\x00" != b""  \t\r\n')
    text = "spec s\r\n" + "".join(block.format(i=i) for i in range(400))
    assert len(text) > 40_000
    assert agree(text) is not None
    bad = text[:30_000] + "\r\nrequirement Z \"z\"\r\n  requires (1 +\r\n" + text[30_000:]
    assert agree(bad) is None
    with pytest.raises(SpecSyntaxError) as err:
        parse(bad, "t.req")
    assert err.value.diagnostics[0].span.line > 300
