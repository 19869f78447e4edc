"""The parser: the shipped specs parse into the expected AST; syntax errors give file:line:col, a caret and
what was expected, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.specs_lang import SpecError, SpecNameError, SpecSyntaxError, check_structure, parse, parse_file
from evalgap.specs_lang import ast as A

from egtest import CASES, run_cli


def test_kvstore_spec_structure() -> None:
    spec = parse_file(CASES / "kvstore" / "kvstore.req")
    assert spec.name == "kvstore"
    assert spec.title == "Single-node key-value store"
    assert spec.target == "agent_store.py"
    ids = [r.id for r, _ in spec.all_requirements()]
    assert ids == ["KV-1", "KV-2", "KV-3", "KV-4", "KV-5", "KV-6", "KV-7"]
    assert isinstance(spec.classes[0].requirements[0].clauses[0], A.Model)
    kv1 = spec.requirements[0]
    sc = kv1.clauses[0]
    assert isinstance(sc, A.Scenario)
    assert [(p.name, str(p.type)) for p in sc.params] == [("key", "str"), ("value", "bytes")]
    assert sc.body[-1] == A.Expect(A.Compare(
        A.Call(A.Attribute(A.Name("s"), "get"), (A.Name("key"),)), ("==",), (A.Name("value"),)))
    kv5 = spec.requirements[4].informal
    assert kv5 is not None and kv5.category == "exclusion"
    assert spec.requirements[0].span.line == 5


def test_function_block_and_expressions() -> None:
    spec = parse(
        "function isqrt(n: int) -> int\n"
        "  requirement SQ-1 \"pre\"\n"
        "    requires n >= 0\n"
        "  requirement SQ-2 \"post\"\n"
        "    ensures 0 <= result <= n ==> (forall i in range(n): i * i <= n or i > result)\n")
    f = spec.functions[0]
    assert f.name == "isqrt" and f.returns == A.TypeRef("int")
    ens = f.requirements[1].clauses[0]
    assert isinstance(ens, A.Ensures)
    assert isinstance(ens.expr, A.Implies)
    assert ens.expr.left == A.Compare(A.Const(0), ("<=", "<="), (A.Name("result"), A.Name("n")))
    assert isinstance(ens.expr.right, A.Quantifier) and ens.expr.right.kind == "forall"


def test_operator_precedence_matches_python() -> None:
    spec = parse('requirement R-1 "x"\n  example -2 ** 2 + 3 * 4 // 5 == 1 - 2 - 3\n')
    ex = spec.requirements[0].clauses[0]
    assert isinstance(ex, A.Example)
    # -(2 ** 2) + ((3 * 4) // 5) == ((1 - 2) - 3)
    assert ex.expr == A.Compare(
        A.BinOp("+", A.UnaryOp("-", A.BinOp("**", A.Const(2), A.Const(2))),
                A.BinOp("//", A.BinOp("*", A.Const(3), A.Const(4)), A.Const(5))),
        ("==",), (A.BinOp("-", A.BinOp("-", A.Const(1), A.Const(2)), A.Const(3)),))


def _syntax(text: str) -> SpecSyntaxError:
    with pytest.raises(SpecSyntaxError) as info:
        parse(text, "bad.req")
    return info.value


def test_unexpected_token_has_caret_and_expectation() -> None:
    err = _syntax('requirement R-1 "prose"\n  ensures x == \n')
    d = err.diagnostics[0]
    assert d.code == "EG101"
    assert (d.span.file, d.span.line) == ("bad.req", 2)
    text = err.render()
    assert text.splitlines()[0].startswith("bad.req:2:")
    assert "expected" in text
    assert "^" in text.splitlines()[2]


def test_caret_points_at_offending_token() -> None:
    err = _syntax('requirement R-1 "prose"\n  requires x >> 2\n')
    d = err.diagnostics[0]
    assert (d.span.line, d.span.col) == (2, 15)
    lines = err.render().splitlines()
    assert lines[1] == "      requires x >> 2"
    assert lines[2].index("^") == lines[1].index(">> 2") + 1


def test_unterminated_string() -> None:
    err = _syntax('requirement R-1 "never closed\n  informal vague "x"\n')
    assert err.diagnostics[0].code == "EG105"
    assert err.diagnostics[0].span.line == 1


def test_bad_dedent() -> None:
    err = _syntax('requirement R-1 "p"\n    scenario (x: int):\n      expect x == x\n  informal vague "r"\n')
    assert err.diagnostics[0].code == "EG103"
    assert err.diagnostics[0].span.line == 4


def test_missing_indent_hint() -> None:
    err = _syntax('requirement R-1 "p"\nrequires x > 0\n')
    assert "indented" in (err.diagnostics[0].hint or "") + err.diagnostics[0].message


def test_structure_errors_are_all_reported() -> None:
    text = ('requirement R-1 "p"\n  informal vauge "r"\n'
            'requirement R-1 ""\n  informal vague "r"\n'
            'requirement R-2 "p"\n  ensures result > 0\n')
    spec = parse(text, "s.req")
    with pytest.raises(SpecNameError) as info:
        check_structure(spec, text)
    codes = [d.code for d in info.value.diagnostics]
    assert codes == ["EG202", "EG201", "EG203", "EG210"]
    assert "did you mean `vague`?" in info.value.render()


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        parse_file(tmp_path / "missing.req")
    assert info.value.diagnostics[0].code == "EG100"


def test_cli_syntax_error_exit_2_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.req"
    bad.write_text('spec s\n  target: x.py\nrequirement R-1 "p"\n  ensures (1 +\n', encoding="utf-8")
    res = run_cli("check", str(bad))
    assert res.exit_code == 2
    assert f"{bad}:" in res.stderr and "error EG1" in res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    assert res.stdout == ""


def test_cli_lint(tmp_path: Path) -> None:
    assert run_cli("lint", str(CASES / "kvstore" / "kvstore.req")).exit_code == 0
    bad = tmp_path / "dup.req"
    bad.write_text('requirement A-1 "p"\n  informal vague "r"\nrequirement A-1 "q"\n  informal vague "r"\n')
    res = run_cli("lint", str(bad))
    assert res.exit_code == 2 and "EG201" in res.stderr and "dup.req:3:1" in res.stderr
