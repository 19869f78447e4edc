"""The language commands as a user runs them: lint, fmt, export (in-process through click's runner)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import icontract
import pytest
from click.testing import CliRunner

from evalgap.verifier.cli.main import cli

ROOT = Path(__file__).parents[1]
SPECS = Path(__file__).parent / "specs"
KV = ROOT / "case_studies" / "kvstore"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_lint_ok_and_errors() -> None:
    code, out, _ = run("lint", str(KV))
    assert code == 0 and out.strip().endswith("kvstore.req: ok")
    code, _, err = run("lint", str(SPECS / "mistakes.req"))
    assert code == 2
    assert err.count("error EG") == 12 and "Traceback" not in err
    assert "mistakes.req:6:20: error EG212" in err


def test_lint_with_explicit_target_checks_its_signatures(tmp_path: Path) -> None:
    other = tmp_path / "other_store.py"
    other.write_text("class KVStore:\n    def put(self, k, v): pass\n    def get(self, k): pass\n")
    code, _, err = run("lint", str(KV / "kvstore.req"), "--target", str(other))
    assert code == 2 and "EG214" in err and "`KVStore` has no attribute `delete`" in err


def test_lint_syntax_error_is_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.req"
    bad.write_text('requirement R-1 "p"\n  ensures (\n')
    code, _, err = run("lint", str(bad))
    assert code == 2 and "error EG1" in err and "Traceback" not in err


def test_fmt_check_and_rewrite(tmp_path: Path) -> None:
    code, out, _ = run("fmt", "--check", str(KV / "kvstore.req"), str(SPECS / "other.req"))
    assert code == 0 and out == ""
    copy = tmp_path / "all.req"
    canonical = (SPECS / "all_constructs.req").read_text()
    original = canonical.replace("record Point: x: int, y: int, label: str len 0..20 ascii",
                                 "record Point:\n  x: int, y: int\n  label: str ascii len 0..20")
    assert original != canonical
    copy.write_text(original)
    code, out, _ = run("fmt", "--check", str(copy))
    assert code == 1 and "would reformat" in out and copy.read_text() == original
    code, out, _ = run("fmt", str(copy))
    assert code == 0 and "reformatted" in out
    text = copy.read_text()
    assert "# Every construct of the language once." in text  # comments kept
    assert '"Lists handed to the library are short."' in text
    assert run("fmt", "--check", str(copy))[0] == 0  # idempotent
    assert text == canonical


def _import(path: Path, name: str) -> object:
    sys.path.insert(0, str(path.parent))
    sys.modules.pop(name, None)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(path.parent))


def test_export_icontract_refutes_the_agent_store_only(tmp_path: Path) -> None:
    agent, ref = tmp_path / "kv_export_agent.py", tmp_path / "kv_export_ref.py"
    assert run("export", "--to", "icontract", str(KV), "-o", str(agent))[0] == 0
    assert run("export", "--to", "icontract", str(KV), "--target", "reference", "-o", str(ref))[0] == 0
    mod_agent, mod_ref = _import(agent, "kv_export_agent"), _import(ref, "kv_export_ref")
    with pytest.raises(icontract.ViolationError, match="KV-1: A value written with put"):
        mod_agent.check_KV_1("", b"\x00")  # type: ignore[attr-defined]
    assert mod_ref.check_KV_1("", b"\x00") == 0  # type: ignore[attr-defined]
    with pytest.raises(icontract.ViolationError, match="KV-3"):
        mod_agent.check_KV_3("a", "b", b"", b"\x00", b"\x01")  # type: ignore[attr-defined]


@pytest.mark.slow
def test_export_pytest_module_runs(tmp_path: Path) -> None:
    out = tmp_path / "test_kv_props.py"
    assert run("export", "--to", "pytest", str(KV), "--target", "reference", "-o", str(out))[0] == 0
    text = out.read_text()
    assert "@given(key=st.text(), value=st.binary())" in text
    import subprocess

    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(out)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert "4 passed" in res.stdout, res.stdout[-2000:]


def test_pygments_lexer_is_registered() -> None:
    from pygments.lexers import get_lexer_for_filename  # type: ignore[import-untyped]
    from pygments.token import Error, Keyword  # type: ignore[import-untyped]

    lexer = get_lexer_for_filename("kvstore.req")
    tokens = list(lexer.get_tokens((KV / "kvstore.req").read_text()))
    assert not [t for t in tokens if t[0] is Error]
    assert (Keyword, "expect") in tokens
