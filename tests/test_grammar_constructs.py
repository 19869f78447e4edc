"""Every construct of the language parses into the documented AST node."""

from __future__ import annotations

from pathlib import Path

import pytest
from lark import Lark

from evalgap.specs_lang import SpecSyntaxError, parse, parse_file
from evalgap.specs_lang import ast as A
from evalgap.specs_lang.parser import grammar

SPECS = Path(__file__).parent / "specs"


def _fn(text: str) -> A.FunctionDecl:
    return parse(text).functions[0]


def test_grammar_is_strict_lalr() -> None:
    g = grammar()
    assert isinstance(g, Lark) and g.options.parser == "lalr" and g.options.strict


def test_range_lexes_as_two_ints_not_floats() -> None:
    p = _fn('function f(n: int in 0..1000) -> int\n  requirement R "p"\n    ensures result == n\n').params[0]
    assert p.type.range == A.Range(0, 1000)
    assert isinstance(p.type.range.lo, int) and isinstance(p.type.range.hi, int)
    q = _fn('function f(x: float in -1.5..2.5e3) -> int\n  requirement R "p"\n    ensures True\n').params[0]
    assert q.type.range == A.Range(-1.5, 2500.0)


def test_length_alphabet_and_nested_narrowings() -> None:
    f = _fn('function f(xs: list[int in 0..9] len 1..50, s: str digits, t: str chars "ab") -> int\n'
            '  requirement R "p"\n    ensures True\n')
    xs, s, t = f.params
    assert xs.type.length == A.Range(1, 50) and xs.type.args[0].range == A.Range(0, 9)
    assert s.type.alphabet == A.Alphabet("digits", "0123456789")
    assert t.type.alphabet == A.Alphabet("chars", "ab")
    assert xs.type.narrowed and str(xs.type) == "list[int]"


def test_keywords_of_narrowings_stay_usable_as_names() -> None:
    f = _fn('function f(digits: int, len: int) -> int\n  requirement R "p"\n'
            '    ensures result == digits + len and any([True])\n')
    assert [p.name for p in f.params] == ["digits", "len"]


def test_every_construct_of_the_sample_spec() -> None:
    spec = parse_file(SPECS / "all_constructs.req")
    assert spec.assumptions[0].id == "A-1"
    assert [r.name for r in spec.records] == ["Dataset", "Point"]
    assert [f.name for f in spec.records[1].fields] == ["x", "y", "label"]
    assert [d.name for d in spec.defs] == ["fact", "total"] and spec.lets[0].name == "LIMIT"
    assert spec.stubs[1].outcomes == (A.StubOutcome("value", value=A.Const(True)),
                                      A.StubOutcome("raises", exception="TimeoutError"), A.StubOutcome("any"))
    cfg = spec.configs[0]
    assert cfg.schema[0].name == "datasets" and isinstance(cfg.requirements[0].clauses[0], A.Rule)
    s4 = spec.functions[0].requirements[3].clauses[0]
    assert isinstance(s4, A.Raises) and s4.exception == "ValueError"
    p1 = spec.functions[1].requirements[0].clauses[1]
    assert isinstance(p1, A.Ensures) and "Old(" in repr(p1.expr)
    assert isinstance(spec.functions[0].requirements[1].clauses[0], A.Let)
    assert spec.classes[0].methods[0].name == "deposit"


def test_old_with_two_arguments_stays_a_call() -> None:
    f = _fn('function f(x: int) -> int\n  requirement R "p"\n    ensures old(x) == old(x, 1)\n')
    clause = f.requirements[0].clauses[0]
    assert isinstance(clause, A.Ensures) and isinstance(clause.expr, A.Compare)
    assert isinstance(clause.expr.left, A.Old) and isinstance(clause.expr.comparators[0], A.Call)


def test_generator_argument() -> None:
    f = _fn('function f(xs: list[int]) -> bool\n  requirement R "p"\n    ensures result == all(x > 0 for x in xs)\n')
    clause = f.requirements[0].clauses[0]
    assert isinstance(clause, A.Ensures) and isinstance(clause.expr, A.Compare)
    call = clause.expr.comparators[0]
    assert isinstance(call, A.Call) and isinstance(call.args[0], A.Comprehension)


@pytest.mark.parametrize("text, code", [
    ('requirement R "p"\n  example (1..2) == 3\n', "EG101"),
    ('requirement R "p"\n  example a == forall x in y: x\n', "EG101"),
    ('function f(n: int in 0..) -> int\n', "EG101"),
    ('record R: x int\n', "EG101"),
])
def test_syntax_errors_have_codes_and_spans(text: str, code: str) -> None:
    with pytest.raises(SpecSyntaxError) as info:
        parse(text)
    d = info.value.diagnostics[0]
    assert d.code == code and 1 <= d.span.line <= text.count("\n") + 1


def test_quantifier_after_comparison_hints_parentheses() -> None:
    with pytest.raises(SpecSyntaxError) as info:
        parse('requirement R "p"\n  example a == forall x in y: x\n')
    assert "parentheses" in (info.value.diagnostics[0].hint or "")


def _example(expr: str) -> A.Expr:
    spec = parse(f'requirement R "p"\n  example {expr}\n')
    clause = spec.requirements[0].clauses[0]
    assert isinstance(clause, A.Example)
    return clause.expr


def test_quantifier_after_and_extends_to_the_right() -> None:
    # like Python's lambda: the body takes everything to its right, `or q` included
    e = _example("a and forall x in xs: p or q")
    assert e == A.BoolOp("and", (A.Name("a"), A.Quantifier(
        "forall", ("x",), A.Name("xs"), A.BoolOp("or", (A.Name("p"), A.Name("q"))))))


def test_quantifier_after_or_not_implies_iff() -> None:
    assert _example("a or exists y in ys: y > 0") == A.BoolOp("or", (A.Name("a"), A.Quantifier(
        "exists", ("y",), A.Name("ys"), A.Compare(A.Name("y"), (">",), (A.Const(0),)))))
    assert _example("not forall x in xs: p") == A.Not(A.Quantifier("forall", ("x",), A.Name("xs"), A.Name("p")))
    e = _example("a ==> forall x in xs: p ==> q")
    assert e == A.Implies(A.Name("a"), A.Quantifier("forall", ("x",), A.Name("xs"),
                                                    A.Implies(A.Name("p"), A.Name("q"))))
    assert _example("a <==> forall x in xs: p") == A.Iff(A.Name("a"), A.Quantifier(
        "forall", ("x",), A.Name("xs"), A.Name("p")))


def test_quantifier_without_parentheses_equals_parenthesized() -> None:
    assert _example("a and b and forall x in xs: x < a") == _example("a and b and (forall x in xs: x < a)")
    assert _example("a and forall x in xs: x < a") != _example("(a and forall x in xs: x) < a")


def test_quantifier_after_comparison_or_arithmetic_still_needs_parentheses() -> None:
    for text in ("x == forall y in ys: p", "x + exists y in ys: p", "a if b else forall x in y: z",
                 "forall x in a and forall y in b: c: d"):
        with pytest.raises(SpecSyntaxError):
            _example(text)
