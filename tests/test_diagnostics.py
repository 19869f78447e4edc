"""The one diagnostics table (evalgap.specs_lang.diagnostics): every code the source can emit is in it, the
emitting code uses its named constants, the older tables are views of it, and docs/diagnostics.md is
generated from it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from egtest import ROOT
from evalgap.specs_lang import diagnostics as D
from evalgap.specs_lang.diagnostics_doc import render_markdown

#: The package's source folders (the case studies' programs are data, not evalgap's code).
SOURCES = ("specs_lang", "translators", "verifier", "research")
#: Any token shaped like an EG code, in code, strings or docstrings.
CODE_RE = re.compile(r"\bEG(?:\d{3}|-[A-Z]+)\b")
#: Modules still emitting bare literals (the parser engineer's file, left alone by the registry's branch);
#: remove each entry when its literals are gone.
PENDING_LITERALS: set[str] = set()


def _sources() -> list[Path]:
    files = [p for folder in SOURCES for p in sorted((ROOT / folder).rglob("*.py"))]
    return [p for p in files if p.name not in ("diagnostics.py",) and not p.name.startswith("fast")]


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def test_every_code_in_the_source_is_registered() -> None:
    """(a) Any EG code written anywhere in the package (code, messages, docstrings) is in the registry."""
    missing = []
    for path in _sources():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            missing += [f"{path.relative_to(ROOT)}:{n}: {c}" for c in CODE_RE.findall(line) if c not in D.REGISTRY]
    assert not missing, "codes used but not in specs_lang/diagnostics.py:\n" + "\n".join(missing)
    assert len(_sources()) > 100  # the scan saw the package


def test_emitting_code_uses_the_constants_not_literals() -> None:
    """No string constant outside a docstring is exactly a registered code: the constants are used."""
    bad = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        docs = _docstring_nodes(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                    and node.value in D.REGISTRY and rel not in PENDING_LITERALS):
                bad.append(f"{rel}:{node.lineno}: {node.value!r} (use {D.REGISTRY[node.value].constant})")
    assert not bad, "\n".join(bad)


def test_imported_constants_are_registered_codes() -> None:
    """Every name imported from the registry module is a code constant or part of its API."""
    api = set(D.__all__)
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "evalgap.specs_lang.diagnostics":
                for a in node.names:
                    assert a.name in api or getattr(D, a.name) in D.REGISTRY, (path, a.name)


def test_records_are_complete_and_unique() -> None:
    assert len(D.REGISTRY) >= 60
    constants = [d.constant for d in D.REGISTRY.values()]
    assert len(set(constants)) == len(constants) and all(c.isupper() for c in constants)
    assert len({d.anchor for d in D.REGISTRY.values()}) == len(D.REGISTRY)
    for code, d in D.REGISTRY.items():
        assert d.code == code and getattr(D, d.constant) == code
        assert d.severity in ("error", "warning", "info", "unknown"), code
        assert d.title and "\n" not in d.title, code
        assert d.docs == f"docs/diagnostics.md#{code.lower()}"
        if d.family == "EG4":
            assert d.name and d.example and f"ignore[{code}]" in d.help, code
    assert D.REGISTRY["EG201"].constant == "DUPLICATE_ID" and D.REGISTRY["EG301"].severity == "error"
    assert D.family_of("EG216") == "EG2" and D.family_of("vague-term") == "smell"
    with pytest.raises(KeyError, match="no known family"):
        D.family_of("EG999")
    with pytest.raises(KeyError, match="not in evalgap.specs_lang.diagnostics.REGISTRY"):
        D.lookup("EG299")
    with pytest.raises(ValueError, match="registered twice"):
        D._code("EG201", "error", "again")


def test_older_tables_are_views_of_the_registry() -> None:
    from evalgap.specs_lang.errors import CODES
    from evalgap.verifier.analysis.gaming import RULES
    from evalgap.verifier.analysis.smells import SMELL_CODES
    from evalgap.verifier.analysis.spec_findings import ANALYSIS_CODES
    from evalgap.verifier.report.gap import REPORT_CODES

    assert CODES == {c: d.title for c, d in D.REGISTRY.items() if c[:3] in ("EG1", "EG2", "EG3")}
    assert CODES["EG201"] == "duplicate requirement ID" and len(CODES) == 60  # EG100-EG108, EG201-EG232, EG240-EG245, EG300-EG312
    assert sorted(ANALYSIS_CODES) == [f"EG3{i:02d}" for i in range(13)]
    assert {c: (r.name, r.summary, r.example) for c, r in RULES.items()} == {
        c: (d.name, d.title, d.example) for c, d in D.codes_of("EG4").items()}
    assert SMELL_CODES["weak-modal"] == D.REGISTRY[D.SMELL_WEAK_MODAL].title and len(SMELL_CODES) == 7
    assert REPORT_CODES == {c: D.REGISTRY[c].title for c in ("EG501", "EG502", "EG503")}


def test_each_smell_example_is_flagged_with_its_code() -> None:
    from evalgap.verifier.analysis.smells import find_smells

    for code, d in D.codes_of("smell").items():
        assert code in [s.code for s in find_smells(d.example)], (code, d.example)


def test_docs_are_generated_from_the_registry() -> None:
    """(b) docs/diagnostics.md is exactly the generator's text, and names every code with its anchor."""
    text = render_markdown()
    doc = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    assert doc == text, "docs/diagnostics.md is stale: run python scripts/gen_diagnostics_doc.py"
    for d in D.REGISTRY.values():
        assert f"\n### {d.code}\n" in doc and f"[{d.code}](#{d.anchor})" in doc and f"`{d.constant}`" in doc


def test_generator_check_mode(tmp_path: Path) -> None:
    script = ROOT / "scripts" / "gen_diagnostics_doc.py"
    ok = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
