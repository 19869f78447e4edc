"""`-` reads standard input for `lint`, `fmt` and `check`: errors name `<stdin>` with line and column, `fmt -`
writes the canonical text to standard output, `check -` checks a piped spec against `--target`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from evalgap.verifier.cli.main import cli

SPEC = """spec mathx "Square roots"

function isqrt(n: int in 0..50) -> int
  requirement SQ-2 "Returns the floor of the square root."
    ensures 0 <= result and result * result <= n < (result + 1) * (result + 1)
  requirement SQ-3 "A worked example."
    example isqrt(16) == 4
"""
BAD_ISQRT = "def isqrt(n: int) -> int:\n    return n // 2\n"


def _run(*args: str, stdin: str | bytes) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin)


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mathbad.py").write_text(BAD_ISQRT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_lint_reads_stdin(here: Path) -> None:
    ok = _run("lint", "-", "--target", "mathbad.py", stdin=SPEC)
    assert ok.exit_code == 0 and ok.stdout == "<stdin>: ok\n", ok.output
    broken = _run("lint", "-", stdin=SPEC.replace("result * result <= n", "result * <= n"))
    assert broken.exit_code == 2
    assert "<stdin>:5:38: error EG101" in broken.stderr, broken.stderr
    assert "^" in broken.stderr  # the caret under the column
    unknown = _run("lint", "-", "--target", "mathbad.py", stdin=SPEC.replace("isqrt(16)", "isqr(16)"))
    assert unknown.exit_code == 2 and "<stdin>:7:13: error EG207" in unknown.stderr, unknown.stderr


def test_lint_stdin_not_utf8_names_stdin(here: Path) -> None:
    res = _run("lint", "-", stdin=b"spec x \"\xff\"\n")
    assert res.exit_code == 2 and "<stdin>:1:9: error EG100" in res.stderr and "byte offset 8" in res.stderr


def test_fmt_reads_stdin_and_writes_stdout(here: Path) -> None:
    messy = SPEC.replace('spec mathx "Square roots"', 'spec    mathx   "Square roots"')
    res = _run("fmt", "-", stdin=messy)
    assert res.exit_code == 0 and res.stdout == SPEC, res.output
    assert _run("fmt", "--check", "-", stdin=messy).exit_code == 1
    same = _run("fmt", "--check", "-", stdin=SPEC)
    assert same.exit_code == 0 and same.stdout == ""
    broken = _run("fmt", "-", stdin="spec x \"y\"\nfunction f(\n")
    assert broken.exit_code == 2 and "<stdin>:2:" in broken.stderr and broken.stdout == ""


def test_check_reads_a_spec_from_stdin_with_target(here: Path) -> None:
    res = _run("check", "-", "--target", "mathbad.py", "--engines", "hypothesis", "--no-analysis", "--no-cache",
               "-q", "-f", "json", stdin=SPEC)
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert data["spec"]["file"] == "<stdin>"
    assert {r["id"]: r["verdict"] for r in data["requirements"]} == {"SQ-2": "refuted", "SQ-3": "refuted"}
    assert data["requirements"][0]["location"] == "<stdin>:4:3"


def test_check_stdin_errors_name_stdin(here: Path) -> None:
    res = _run("check", "-", "--target", "mathbad.py", stdin=SPEC.replace("ensures 0 <=", "ensures 0 <= <="))
    assert res.exit_code == 2 and "<stdin>:5:18: error EG101" in res.stderr, res.stderr
    res = _run("check", "-", "--target", "mathbad.py", stdin=SPEC.replace("isqrt(n", "isqrtx(n"))
    assert res.exit_code == 2 and "<stdin>:3:10: error EG211" in res.stderr, res.stderr
    res = _run("check", "-", stdin=SPEC)  # no target: neither --target nor `target:`
    assert res.exit_code == 2 and "<stdin>: no target" in res.stderr, res.stderr
