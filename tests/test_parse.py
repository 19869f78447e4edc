"""The one parser (lark LALR(1), AST built during the parse): every shipped spec parses and is formatted
canonically; constructs, keywords in context and layout; spans; syntax-error messages in the language's
words, friendly messages for common mistakes; EG106; the grammar cache; threads and the garbage collector.
"""

from __future__ import annotations

import gc
import re
import subprocess
import threading
from pathlib import Path

import pytest
from lark import Lark

from evalgap.specs_lang import SpecError, SpecSyntaxError, parse
from evalgap.specs_lang import ast as A
from evalgap.specs_lang.build import Builder
from evalgap.specs_lang.format import format_spec
from evalgap.specs_lang import tables
from evalgap.specs_lang.parser import MAX_NESTING, build_grammar, builder, grammar, grammar_cache_file

from egtest import run_cli

pytestmark = pytest.mark.filterwarnings("ignore:invalid escape sequence")  # literal_eval of "a\d"

ROOT = Path(__file__).parents[1]
SHIPPED = sorted(subprocess.run(["git", "ls-files", "*.req"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.split())


# ------------------------------------------------------------------ every shipped spec
def test_shipped_specs_are_found() -> None:
    assert len(SHIPPED) >= 400 and "case_studies/kvstore/kvstore.req" in SHIPPED


def test_every_shipped_spec_parses() -> None:
    for rel in SHIPPED:
        spec = parse((ROOT / rel).read_text(encoding="utf-8"), rel)
        assert spec.file == rel and spec.all_requirements(), rel


def test_every_shipped_spec_is_formatted() -> None:
    """`evalgap fmt --check` passes on every shipped .req (run `evalgap fmt FILE` on a new one)."""
    res = run_cli("fmt", "--check", *(str(ROOT / rel) for rel in SHIPPED))
    assert (res.exit_code, res.stdout, res.stderr) == (0, "", "")


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


def test_cases_parse_or_give_a_located_error() -> None:
    accepted = 0
    for text in CASES:
        try:
            spec = parse(text, "t.req")
        except SpecError as exc:
            d = exc.diagnostics[0]
            assert d.code.startswith("EG1") and 1 <= d.span.line <= text.count("\n") + 2, (text, d)
            continue
        accepted += 1
        assert parse(format_spec(spec), "t.req") == spec, text
    assert accepted == 93  # of 124 (`if = 3` at the start of a scenario statement is an `if` block since issue 23)


def test_layout_variants_build_the_same_declarations() -> None:
    one_line = parse("record R: a: int, b: str, c: None\ndef f(x: int) -> int: x + 1\n")
    indented = parse("record R:\n  a: int,\n  b: str\n  c: None\ndef f(x: int) -> int:\n  x + 1\n")
    assert one_line == indented and [p.name for p in indented.records[0].fields] == ["a", "b", "c"]


def test_adversarial_layout() -> None:
    """A >40 KB spec with CRLF, form feeds, trailing blanks, column-0 comments inside blocks, column-0 lines
    inside brackets and after a continuation; then a syntax error deep inside it."""
    block = ('requirement R-{i} "Prose \u00e9 {i}."\r\n  requires (a,\r\nb) == (1, 2) and \\\r\nc\f \r\n'
             '# col0\r\n  ensures len([x,\r\ny]) >= 0 and b"\\x00" != b""  \t\r\n')
    text = "spec s\r\n" + "".join(block.format(i=i) for i in range(400))
    spec = parse(text, "t.req")
    assert len(spec.requirements) == 400 and spec.requirements[399].span.line == 2 + 399 * 7
    ensures = spec.requirements[0].clauses[1]
    assert isinstance(ensures, A.Ensures) and isinstance(ensures.expr, A.BoolOp)
    assert ensures.expr.values[1] == A.Compare(A.Const(b"\x00"), ("!=",), (A.Const(b""),))
    bad = text[:30_000] + "\r\nrequirement Z \"z\"\r\n  requires (1 +\r\n" + text[30_000:]
    with pytest.raises(SpecSyntaxError) as err:
        parse(bad, "t.req")
    assert err.value.diagnostics[0].span.line > 300


# ------------------------------------------------------------------ spans (from the first to the last token)
def test_spans_cover_the_rule_text() -> None:
    text = ('requirement R-1 "p"\n  requires (a) < b + (c)\n  ensures f(x)[1].y and not z\n'
            '  scenario (k: int in 0..3):\n    expect raises E: s.get(k)\n')
    req = parse(text, "t.req").requirements[0]

    def at(node: object) -> tuple[int, int, int, int]:
        s = getattr(node, "span")
        return (s.line, s.col, s.end_line, s.end_col)

    requires, ensures, scenario = req.clauses
    assert isinstance(requires, A.Requires) and isinstance(requires.expr, A.Compare)
    assert at(req) == (1, 1, 6, 1) and at(requires) == (2, 3, 3, 3)  # a clause ends with its newline
    assert at(requires.expr) == (2, 12, 2, 25)  # brackets around an operand are part of its parent's text
    assert at(requires.expr.left) == (2, 13, 2, 14)  # ... not of the operand
    assert at(requires.expr.comparators[0]) == (2, 18, 2, 24)  # a BinOp spans its operands
    assert isinstance(ensures, A.Ensures) and isinstance(ensures.expr, A.BoolOp)
    assert [at(v) for v in ensures.expr.values] == [(3, 11, 3, 20), (3, 25, 3, 30)]
    assert isinstance(scenario, A.Scenario)
    assert at(scenario.params[0]) == (4, 13, 4, 27) and at(scenario.params[0].type.range) == (4, 23, 4, 27)
    assert at(scenario.body[0]) == (5, 5, 6, 1)


# ------------------------------------------------------------------ messages
def _error(text: str) -> tuple[str, int, int, str, str | None]:
    with pytest.raises(SpecSyntaxError) as info:
        parse(text, "e.req")
    d = info.value.diagnostics[0]
    return d.code, d.span.line, d.span.col, d.message, d.hint


def test_expected_tokens_are_the_languages_words() -> None:
    assert _error('requirement R "p"\n  ensures x + \n') == (
        "EG101", 2, 14, "unexpected end of line; expected '(', '+', '-', 'False', 'None', 'True', '[', '{', ...",
        None)
    assert _error("spec s\ntarget: x.py y\n") == (
        "EG101", 2, 14, "unexpected 'y'; expected a newline", None)
    assert _error('requirement R "p"\n  requires x > 0 and not\n') == (
        "EG101", 2, 25,
        "unexpected end of line; expected '(', '+', '-', 'False', 'None', 'True', '[', 'exists', ...",
        None)
    assert _error('requirement R "p"\n  ensures all(x for\n') == (
        "EG101", 2, 20, "unexpected end of block; expected an identifier", None)  # a newline in brackets is a space
    assert _error('requirement R-1e5 "p"\n  ensures x\n')[3] == (
        "unexpected 'e5'; expected '-', '.', a newline, a string, an integer")  # more digits may follow (LG-02 lexes as LG, -, 0, 2)


def test_no_message_names_a_grammar_terminal() -> None:
    texts = [t for t in CASES] + [t[:i] for t in CASES[::7] for i in range(1, len(t), 3)]
    terminals = grammar().terminals
    names = {t.name for t in terminals} | {"$END"}
    quoted = {f"'{t.name.lower()}'" for t in terminals if str(t.pattern.value).lower() != t.name.lower()}
    seen = 0
    for text in texts:
        try:
            parse(text, "t.req")
        except SpecSyntaxError as exc:
            msg = exc.diagnostics[0].message
            if "; expected " not in msg:
                continue
            seen += 1
            msg = msg.split("; expected ", 1)[1]
            words = set(re.findall(r"[$\w]+", msg)) | set(re.findall(r"'[^' ]+'", msg))
            assert not words & (names | quoted), msg
    assert seen > 50


@pytest.mark.parametrize(("text", "line", "col", "message", "hint"), [
    ('requirement R "p"\n  scenario (k: int)\n    expect k == k\n', 2, 20,
     "missing ':' after the scenario's parameters",
     "write `scenario (x: int):` and indent the scenario's statements under it"),
    ('function f(x: int) -> int\n  requirement R "p"\n    scenario ()\n      expect f(1) == 1\n', 3, 16,
     "missing ':' after the scenario's parameters",
     "write `scenario (x: int):` and indent the scenario's statements under it"),
    ('requirement R "p"\n  ensures result = 1\n', 2, 18,
     "'=' assigns a name in a scenario; to compare, write '=='",
     "a clause states a condition: `ensures result == 0`"),
    ('function f(x: int) -> int\n  requirement R "p"\n    ensures (x > 0 and f(x)[0]) = 1\n', 3, 33,
     "'=' assigns a name in a scenario; to compare, write '=='",
     "a clause states a condition: `ensures result == 0`"),
    ('requirement KV-1\n  ensures x\n', 1, 17,
     "a requirement needs its prose (a string) after its ID",
     'write `requirement R-1 "What the code must do."`'),
    ('class C\n  requirement INV\n    invariant self.n >= 0\n', 2, 18,
     "a requirement needs its prose (a string) after its ID",
     'write `requirement R-1 "What the code must do."`'),
    ('requirement "The store keeps values."\n  ensures x\n', 1, 13,
     "a requirement needs an ID before its prose",
     'write `requirement R-1 "What the code must do."` (an ID is letters, digits, `-` and `.`)'),
])
def test_common_mistakes_get_friendly_messages(text: str, line: int, col: int, message: str, hint: str) -> None:
    assert _error(text) == ("EG101", line, col, message, hint)


def test_a_friendly_message_needs_the_mistakes_token() -> None:
    # same parser state as `ensures x = 1`, another token: the generic message
    assert _error('requirement R "p"\n  ensures x y\n')[3].startswith("unexpected 'y'; expected ")
    # same state as a missing prose string, but a name after the ID
    assert _error('requirement R-1 ensures x\n')[3].startswith("unexpected 'ensures'; expected ")


def test_friendly_message_in_the_cli(tmp_path: Path) -> None:
    bad = tmp_path / "bad.req"
    bad.write_text('requirement R "p"\n  scenario (k: int)\n    expect k == k\n')
    res = run_cli("lint", str(bad))
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    assert (res.stdout + res.stderr).splitlines()[:3] == [
        f"{bad}:2:20: error EG101: missing ':' after the scenario's parameters",
        "      scenario (k: int)",
        "                       ^",
    ]


# ------------------------------------------------------------------ nesting (EG106)
@pytest.mark.parametrize(("expr", "col"), [
    ("(" * 300 + "1" + ")" * 300, 11 + MAX_NESTING),  # the first bracket past the limit
    ("[" * 101 + "1" + "]" * 101, 11 + MAX_NESTING),
    ("not " * 500 + "True", 11 + 4 * MAX_NESTING),  # the first `not` past the limit
    ("-" * 300 + "1", 11 + MAX_NESTING),
    ("1 ** " * 300 + "1", 13 + 5 * MAX_NESTING),  # the first `**` past the limit
])
def test_deep_nesting_is_eg106_not_a_crash(expr: str, col: int) -> None:
    text = f'spec x\n\nrequirement R "p"\n  example {expr}\n'
    code, line, got_col, message, hint = _error(text)
    assert (code, line, got_col) == ("EG106", 4, col)
    assert message == "expression nested too deeply (more than 100 levels)"
    assert hint == "name parts of the expression with `let` to nest less"


def test_nesting_up_to_the_limit_parses() -> None:
    spec = parse('requirement R "p"\n  example ' + "[" * MAX_NESTING + "1" + "]" * MAX_NESTING + " != 1\n")
    example = spec.requirements[0].clauses[0]
    assert isinstance(example, A.Example) and isinstance(example.expr, A.Compare)
    node: A.Expr = example.expr.left
    depth = 0
    while isinstance(node, A.ListExpr):
        node, depth = node.elts[0], depth + 1
    assert depth == MAX_NESTING and node == A.Const(1)


# ------------------------------------------------------------------ the parser object, its cache, threads, gc
def test_one_lalr_parser_with_the_contextual_lexer_and_an_embedded_builder() -> None:
    g = grammar()
    assert isinstance(g, Lark) and g is grammar()
    assert (g.options.parser, g.options.lexer, g.options.strict) == ("lalr", "contextual", True)
    assert isinstance(g.options.transformer, Builder)


def test_grammar_cache_file_under_evalgap_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path))
    path = grammar_cache_file()
    assert path is not None and path.parent == tmp_path / "lark" and path.name.startswith("spec-grammar-")
    (tmp_path / "blocked").write_text("a file, not a folder")
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path / "blocked"))
    assert grammar_cache_file() is None  # no cache folder: the grammar is built without cache


def test_grammar_cache_is_written_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tables, "load", lambda postlex, transformer: None)  # tables of another lark: build
    text = 'requirement R "p"\n  ensures a and forall x in y: x > 0\n'

    def parsed(g: Lark) -> A.Spec:
        builder(g).reset("t.req", text)
        spec = g.parse(text)
        assert isinstance(spec, A.Spec)
        return spec

    built = parsed(build_grammar())
    path = grammar_cache_file()
    assert path is not None and path.is_file() and path.stat().st_size > 1000
    assert parsed(build_grammar()) == built == parse(text, "t.req")
    path.write_bytes(b"garbage")  # a damaged cache is ignored (lark rebuilds the parser)
    assert parsed(build_grammar()) == built


def test_parses_from_threads_do_not_mix() -> None:
    texts = [f'requirement R-{i} "p{i}"\n  ensures x == {i}\n' * 1 + f'function f{i}(x: int) -> int\n'
             f'  requirement F-{i} "q"\n    ensures result > {i}\n' for i in range(8)]
    errors: list[BaseException] = []
    results: dict[int, list[A.Spec]] = {i: [] for i in range(8)}

    def work(i: int) -> None:
        try:
            for _ in range(30):
                results[i].append(parse(texts[i], f"f{i}.req"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for i, specs in results.items():
        assert len(specs) == 30 and all(s == specs[0] for s in specs)
        assert specs[0].file == f"f{i}.req" and specs[0].requirements[0].id == f"R-{i}"
        assert specs[0].functions[0].requirements[0].span.file == f"f{i}.req"


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collector_state_is_restored(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        parse('requirement R "p"\n  ensures x\n')
        assert gc.isenabled() is enabled
        with pytest.raises(SpecSyntaxError):
            parse('requirement R "p"\n  ensures x ==\n')
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
