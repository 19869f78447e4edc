"""The LALR(1) tables shipped beside the grammar (``specs_lang/grammar/spec.tables``): up to date with the
grammar, parsing exactly as a parser built strictly from the grammar, and ignored when foreign or damaged."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import lark
import pytest
from lark import Lark

from evalgap.specs_lang import SpecSyntaxError, parse, tables
from evalgap.specs_lang import ast as A
from evalgap.specs_lang import parser as P
from evalgap.specs_lang.build import Builder

REPO = Path(__file__).resolve().parents[1]


def _specs() -> list[Path]:
    found = sorted(p for p in REPO.rglob("*.req") if ".venv" not in p.parts and "node_modules" not in p.parts)
    assert len(found) > 20, "the repository's own specs are the corpus of this test"
    return found


def _parse_with(g: Lark, text: str, name: str) -> A.Spec:
    P.builder(g).reset(name, text)
    spec = g.parse(text)
    assert isinstance(spec, A.Spec)
    return spec


def test_shipped_tables_were_built_from_this_grammar() -> None:
    head = tables.saved()
    assert head is not None, "specs_lang/grammar/spec.tables is missing: run python -m evalgap.specs_lang.tables"
    assert head["grammar_sha256"] == hashlib.sha256(tables.grammar_text().encode()).hexdigest(), (
        "the grammar changed since its tables were built: run python -m evalgap.specs_lang.tables")


def test_shipped_tables_are_used_with_the_lark_that_built_them() -> None:
    head = tables.saved()
    assert head is not None
    if head["lark"] != lark.__version__:
        pytest.skip(f"the tables were built by lark {head['lark']}, lark {lark.__version__} is installed: "
                    "they are ignored and the parser is built from the grammar (the next test's path)")
    assert head["key"] == tables.tables_key()
    g = tables.load(P.layout(), Builder())
    assert isinstance(g, Lark) and g.options.strict is True and g.options.parser == "lalr"


def test_tables_parse_every_spec_of_the_repository_as_a_strict_build_does() -> None:
    shipped = tables.load(P.layout(), Builder())
    if shipped is None:
        pytest.skip("the shipped tables do not match the installed lark")
    built = tables.build_strict(P.layout(), Builder())
    for path in _specs():
        text = path.read_text(encoding="utf-8")
        try:
            want = _parse_with(built, text, str(path))
        except lark.exceptions.LarkError as exc:
            with pytest.raises(type(exc)):
                _parse_with(shipped, text, str(path))
            continue
        assert _parse_with(shipped, text, str(path)) == want, path


def test_syntax_errors_read_the_same_from_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    # the expected-token lists of a syntax error come from the tables: same message, line, column
    bad = ['function f(x: int) -> int\n  requirement R "p"\n    ensures result >\n',
           'requirement R "p"\n  ensures (a and\n',
           'spec s "t"\n  target x.py\n']
    for text in bad:
        with pytest.raises(SpecSyntaxError) as shipped:
            parse(text, "bad.req")
        assert shipped.value.diagnostics[0].message
        P._PARSER = None
        with monkeypatch.context() as m:
            m.setattr(tables, "load", lambda postlex, transformer: None)
            with pytest.raises(SpecSyntaxError) as built:
                parse(text, "bad.req")
        P._PARSER = None
        assert [(d.code, d.message, d.span) for d in shipped.value.diagnostics] == [
            (d.code, d.message, d.span) for d in built.value.diagnostics]


def test_damaged_or_foreign_tables_are_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "spec.tables"
    monkeypatch.setattr(tables, "_file", lambda: fake)
    assert tables.load(P.layout(), Builder()) is None  # missing
    fake.write_bytes(b"not a pickle")
    assert tables.load(P.layout(), Builder()) is None and tables.saved() is None
    tables.write(fake)
    assert tables.load(P.layout(), Builder()) is not None
    import pickle

    data = pickle.loads(fake.read_bytes())
    data["key"] = "0" * 64  # another grammar or lark
    fake.write_bytes(pickle.dumps(data))
    assert tables.load(P.layout(), Builder()) is None
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path / "c"))
    g = P.build_grammar()  # falls back to building the tables (strictly) from the grammar
    assert g.options.strict is True
    assert _parse_with(g, 'requirement R "p"\n  ensures x > 0\n', "t.req") == parse(
        'requirement R "p"\n  ensures x > 0\n', "t.req")


def test_write_then_load_round_trips_in_a_fresh_interpreter(tmp_path: Path) -> None:
    out = tmp_path / "t.tables"
    code = ("import sys, pathlib; from evalgap.specs_lang import tables, parser as P; "
            "from evalgap.specs_lang.build import Builder; p = tables.write(pathlib.Path(sys.argv[1])); "
            "tables._file = lambda: p; g = tables.load(P.layout(), Builder()); "
            "print(g is not None and g.options.strict)")
    done = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr
    assert out.stat().st_size > 10_000
