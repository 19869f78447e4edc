"""A second bad-input battery, written without reading the first (tests/test_bad_inputs*.py): careless and
hostile inputs to every command. Each row asserts the documented exit code (docs/verdicts.md), words of the
message, that no traceback or "internal error" appears, and that nothing outside the row's intended outputs
changed in its folder (special files are never replaced).

Rows run the CLI in-process (``egtest.run_cli``); the MCP startup flags and the signal rows use subprocesses.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import pytest
from egtest import run_cli
from report_fixtures import sample_report

from evalgap.verifier.report.outputs import render

GOOD_PY = "def add(a: int, b: int) -> int:\n    return a + b\n"
GOOD_REQ = ('spec good "Addition"\n  target: good.py\n\nfunction add(a: int in 0..10, b: int in 0..10) -> int\n'
            '  requirement A-1 "Adds."\n    ensures result == a + b\n')
CASE_REQ = GOOD_REQ.replace("  target: good.py\n", "")
CFG_REQ = ('spec cfg "C"\nrecord Dataset: name: str, days: int in 0..3650\n'
           'config retention "R" schema: datasets: list[Dataset]\n'
           '  requirement RT-1 "At most 30 days."\n    forall d in datasets: d.days <= 30\n')


def _expr_spec(expr: str, params: str = "a: int, b: int") -> str:
    return (f'spec d "t"\n  target: good.py\nfunction add({params}) -> int\n  requirement A-1 "x"\n'
            f"    ensures {expr}\n")


def _report_json() -> str:
    return render(sample_report(), "json")


def _mutated_report(change: Callable[[dict[str, object]], None]) -> str:
    data = json.loads(_report_json())
    change(data)
    return json.dumps(data)


Files = Mapping[str, "str | bytes | Callable[[Path], None]"]


@dataclass(frozen=True)
class Row:
    """One bad input: files to create, the command line, the exit code and words of the message."""

    id: str
    args: tuple[str, ...]
    code: int
    words: tuple[str, ...] = ()
    files: Files = field(default_factory=dict)
    outputs: tuple[str, ...] = ()  # paths (relative) the command may write


def _case(files: dict[str, str | bytes]) -> Files:
    base: dict[str, str | bytes | Callable[[Path], None]] = {"c/good.py": GOOD_PY, "c/good.req": CASE_REQ}
    base.update({f"c/{k}": v for k, v in files.items()})
    return base


def _pyproject(text: str | bytes) -> Files:
    return {"p/good.py": GOOD_PY, "p/good.req": GOOD_REQ, "p/pyproject.toml": text}


def _symlink(target: str, name: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        os.symlink(target, d / name)
    return make


def _fifo(name: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        os.mkfifo(d / name)
    return make


def _folder(name: str) -> Callable[[Path], None]:
    def make(d: Path) -> None:
        (d / name).mkdir()
    return make


def _git_repo(d: Path) -> None:
    repo = d / "repo"
    repo.mkdir()
    (repo / "good.py").write_text(GOOD_PY)
    (repo / "good.req").write_text(GOOD_REQ)
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02\xff")
    git("add", "blob.bin")
    git("commit", "-qm", "binary")


B = ("--budget", "1", "--no-analysis", "-q", "--engines", "crosshair")
SPEC = {"good.py": GOOD_PY, "good.req": GOOD_REQ}
REPORT = {"rep.json": _report_json()}

ROWS: list[Row] = [
    # ---- malformed specs (lint, fmt, analyze) ----
    Row("spec-binary", ("lint", "x.req"), 2, ("x.req:2:1", "EG100", "NUL byte", "byte offset 7"),
        {"x.req": b"spec x\n\x00\x01\xff"}),
    Row("spec-latin1", ("lint", "x.req"), 2, ("x.req:5:23", "EG100", "0xe9", "byte offset 88"),
        {"x.req": 'spec x "t"\n  target: good.py\n\nfunction add(a: int, b: int) -> int\n  requirement A-1 "caf'
         .encode() + b'\xe9"\n    ensures result == a + b\n'}),
    Row("spec-utf16", ("lint", "x.req"), 2, ("x.req:1:1", "EG100"), {"x.req": "spec x".encode("utf-16")}),
    Row("spec-empty", ("lint", "x.req"), 2, ("EG223",), {"x.req": ""}),
    Row("spec-only-comments", ("lint", "x.req"), 2, ("EG223",), {"x.req": "\n\n   \n# only a comment\n"}),
    Row("spec-dev-null", ("lint", "/dev/null"), 2, ("EG223",)),
    Row("spec-dev-zero", ("lint", "/dev/zero"), 2, ("EG107", "4 MiB")),
    Row("spec-folder", ("lint", "sub"), 2, ("sub", "folder"), {"sub": _folder("sub")}),
    Row("spec-missing", ("lint", "nope.req"), 2, ("nope.req", "does not exist")),
    Row("spec-dangling-link", ("lint", "l.req"), 2, ("l.req", "does not exist"), {"l.req": _symlink("gone.req", "l.req")}),
    Row("spec-deep-brackets", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("[" * 5000 + "]" * 5000 + " == result")}),
    Row("spec-20000-plus", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == " + " + ".join(["a"] * 20000))}),
    Row("spec-3000-minus", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == " + "-" * 3000 + "a")}),
    Row("spec-attribute-chain", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == " + "a." * 3000 + "b")}),
    Row("spec-index-chain", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == a" + "[0]" * 3000)}),
    Row("spec-call-chain", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == a" + "(0)" * 3000)}),
    Row("spec-if-else-chain", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec(" if a else ".join(["result"] * 3000))}),
    Row("spec-forall-chain", ("lint", "x.req"), 2, ("x.req:5:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("".join(f"forall x{i} in range(2): " for i in range(2000)) + "True")}),
    Row("spec-deep-type", ("lint", "x.req"), 2, ("x.req:3:", "EG106"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("True", "a: " + "list[" * 600 + "int" + "]" * 600 + ", b: int")}),
    Row("spec-lambda", ("lint", "x.req"), 2, ("x.req:5:", "EG101"), {"good.py": GOOD_PY, "x.req": _expr_spec("result == lambda: 1")}),
    Row("spec-huge-int-literal", ("lint", "x.req"), 2, ("x.req:5:", "EG108", "digits"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == " + "9" * 100000)}),
    Row("spec-4400-digit-literal", ("lint", "x.req"), 2, ("x.req:5:23", "EG108"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == " + "9" * 4400)}),
    Row("spec-huge-range-bound", ("lint", "x.req"), 2, ("x.req:3:", "EG108"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == a + b", "a: int in 0.." + "9" * 5000 + ", b: int")}),
    Row("fmt-huge-int-literal", ("fmt", "--check", "x.req"), 2, ("x.req:5:", "EG108"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == " + "9" * 100000)}),
    Row("analyze-huge-int-literal", ("analyze", "x.req"), 2, ("x.req:5:", "EG108"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == " + "9" * 100000)}),
    Row("analyze-float-overflow", ("analyze", "x.req", "--timeout", "1"), 3, ("A-1", "not in the Z3 fragment"),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == 1e999"), "good.py": GOOD_PY}),
    Row("analyze-tower-of-powers", ("analyze", "x.req", "--timeout", "1"), 3, ("A-1",),
        {"good.py": GOOD_PY, "x.req": _expr_spec("result == 10**10**10**10"), "good.py": GOOD_PY}),
    Row("spec-bom-accepted", ("lint", "x.req"), 0, ("ok",), {"x.req": b"\xef\xbb\xbf" + CASE_REQ.encode()}),
    Row("spec-crlf-accepted", ("lint", "x.req"), 0, ("ok",), {"x.req": CASE_REQ.replace("\n", "\r\n")}),
    Row("fmt-folder", ("fmt", "sub"), 2, ("EG100", "folder"), {"sub": _folder("sub")}),
    Row("fmt-binary", ("fmt", "x.req"), 2, ("EG100",), {"x.req": b"\x00\x00\x00"}),
    Row("fmt-fifo-refused", ("fmt", "f.req"), 2, ("f.req", "not a regular file"), {"f.req": _fifo("f.req")}),
    Row("fmt-through-symlink", ("fmt", "l.req"), 0, (), {"real.req": CASE_REQ.replace("  requirement", "  requirement"),
                                                        "l.req": _symlink("real.req", "l.req")}, ("real.req",)),
    # ---- case.toml ----
    Row("case-invalid-toml", ("check", "c", *B), 2, ("case.toml", "invalid TOML", "line 1"),
        _case({"case.toml": "[case\nname='x'\n"})),
    Row("case-utf16", ("check", "c", *B), 2, ("case.toml:1:1", "EG100"), _case({"case.toml": b"\xff\xfe[case]\n"})),
    Row("case-missing-spec", ("check", "c", *B), 2, ("case.toml", "nope.req"),
        _case({"case.toml": '[case]\nspec = "nope.req"\n'})),
    Row("case-spec-not-string", ("check", "c", *B), 2, ("case.toml", "spec", "string"),
        _case({"case.toml": "[case]\nspec = 5\n"})),
    Row("case-implementation-outside", ("check", "c", *B), 2, ("passwd", "not a Python file"),
        _case({"case.toml": '[case]\nspec = "good.req"\ndefault = "x"\n[implementations]\nx = "/etc/passwd"\n'})),
    Row("case-default-unknown", ("check", "c", *B), 2, ("case.toml", "default", "zz"),
        _case({"case.toml": '[case]\nspec = "good.req"\ndefault = "zz"\n[implementations]\nx = "good.py"\n'})),
    Row("case-implementation-list", ("check", "c", *B), 2, ("case.toml", "implementations"),
        _case({"case.toml": '[case]\nspec = "good.req"\n[implementations]\nx = ["good.py"]\n'})),
    Row("case-implementations-int", ("check", "c", *B), 2, ("case.toml", "implementations"),
        _case({"case.toml": '[case]\nspec = "good.req"\nimplementations = 5\n'})),
    Row("case-expected-int", ("check", "c", *B), 2, ("case.toml", "expected.x", "A-1"),
        _case({"case.toml": '[case]\nspec = "good.req"\ndefault="x"\n[implementations]\nx = "good.py"\n'
               '[expected.x]\nA-1 = 7\n'})),
    Row("case-expected-not-table", ("check", "c", *B), 2, ("case.toml", "expected"),
        _case({"case.toml": '[case]\nspec = "good.req"\ndefault="x"\n[implementations]\nx = "good.py"\n'
               '[expected]\nx = "refuted"\n'})),
    Row("case-expected-bad-verdict", ("check", "c", *B), 2, ("case.toml", "maybe", "not a verdict"),
        _case({"case.toml": '[case]\nspec = "good.req"\ndefault="x"\n[implementations]\nx = "good.py"\n'
               '[expected.x]\nA-1 = "maybe"\n'})),
    Row("case-deeply-nested", ("check", "c", *B), 2, ("case.toml", "nested"),
        _case({"case.toml": '[case]\nspec = "good.req"\nx = ' + "[" * 2000 + "]" * 2000 + "\n"})),
    Row("case-not-a-table", ("check", "c", *B), 2, ("case.toml", "[case]"), _case({"case.toml": 'case = "s"\n'})),
    Row("case-tests-missing", ("check", "c", *B), 2, ("case.toml", "nope_tests.py", "does not exist"),
        _case({"case.toml": '[case]\nspec = "good.req"\ntests = "nope_tests.py"\n[implementations]\nx = "good.py"\n'})),
    Row("case-toml-to-dev-zero", ("check", "c", *B), 2, ("case.toml", "not a regular file"),
        {**_case({}), "c/case.toml": _symlink("/dev/zero", "c/case.toml")}),
    # ---- pyproject.toml [tool.evalgap] ----
    Row("pyproject-budget-string", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "budget", "wrong type"),
        _pyproject('[tool.evalgap]\nbudget = "fast"\n')),
    Row("pyproject-budget-nan", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "nan"),
        _pyproject("[tool.evalgap]\nbudget = nan\n")),
    Row("pyproject-budget-inf", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "inf"),
        _pyproject("[tool.evalgap]\nbudget = inf\n")),
    Row("pyproject-budget-negative", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "-3"),
        _pyproject("[tool.evalgap]\nbudget = -3\n")),
    Row("pyproject-budget-bool", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "budget"),
        _pyproject("[tool.evalgap]\nbudget = true\n")),
    Row("pyproject-jobs-zero", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "jobs", "at least 1"),
        _pyproject("[tool.evalgap]\njobs = 0\n")),
    Row("pyproject-jobs-negative", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "jobs", "at least 1"),
        _pyproject("[tool.evalgap]\njobs = -3\n")),
    Row("pyproject-jobs-string", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "jobs"),
        _pyproject('[tool.evalgap]\njobs = "many"\n')),
    Row("pyproject-engines-int", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "engines"),
        _pyproject("[tool.evalgap]\nengines = 5\n")),
    Row("pyproject-engines-unknown", ("check", "p/good.req", "-q"), 2, ("engines", "z3"),
        _pyproject('[tool.evalgap]\nengines = ["z3"]\n')),
    Row("pyproject-profile-unknown", ("check", "p/good.req", "-q"), 2, ("profile", "turbo"),
        _pyproject('[tool.evalgap]\nprofile = "turbo"\n')),
    Row("pyproject-invalid-toml", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "line 1"),
        _pyproject("[tool.evalgap\n")),
    Row("pyproject-evalgap-string", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "table"),
        _pyproject('[tool]\nevalgap = "yes"\n')),
    Row("pyproject-tool-int", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "[tool]", "table"),
        _pyproject("tool = 5\n")),
    Row("pyproject-seed-float", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "seed"),
        _pyproject("[tool.evalgap]\nseed = 1.5\n")),
    Row("pyproject-examples-negative", ("check", "p/good.req", "-q"), 2, ("hypothesis_examples",),
        _pyproject("[tool.evalgap]\nhypothesis_examples = -1\n")),
    Row("pyproject-unknown-key", ("check", "p/good.req", "-q"), 2, ("bogus_key",),
        _pyproject("[tool.evalgap]\nbogus_key = 1\n")),
    Row("pyproject-not-utf8", ("check", "p/good.req", "-q"), 2, ("pyproject.toml:1:1", "EG100", "0xff"),
        _pyproject(b"\xff\xfe[tool.evalgap]\n")),
    Row("pyproject-deeply-nested", ("check", "p/good.req", "-q"), 2, ("pyproject.toml", "nested"),
        _pyproject("[tool.evalgap]\nbudget = 1\n[x]\ny = " + "[" * 3000 + "]" * 3000 + "\n")),
    # ---- option values ----
    Row("budget-nan", ("check", "good.req", "--budget", "nan"), 2, ("budget", "nan"), SPEC),
    Row("budget-overflow-inf", ("check", "good.req", "--budget", "1e400"), 2, ("budget", "inf"), SPEC),
    Row("budget-negative", ("check", "good.req", "--budget=-1"), 2, ("budget", "-1"), SPEC),
    Row("budget-zero", ("check", "good.req", "--budget", "0"), 2, ("budget",), SPEC),
    Row("budget-above-a-day", ("check", "good.req", "--budget", "1e6"), 2, ("86400",), SPEC),
    Row("budget-hex", ("check", "good.req", "--budget", "0x10"), 2, ("--budget", "not a valid float"), SPEC),
    Row("jobs-zero", ("check", "good.req", "-j", "0"), 2, ("--jobs",), SPEC),
    Row("jobs-word", ("check", "good.req", "-j", "all"), 2, ("--jobs",), SPEC),
    Row("fail-on-empty", ("check", "good.req", "--fail-on", ""), 2, ("--fail-on",), SPEC),
    Row("fail-on-upper", ("check", "good.req", "--fail-on", "REFUTED"), 2, ("REFUTED",), SPEC),
    Row("format-unknown", ("check", "good.req", "-f", "xml"), 2, ("xml",), SPEC),
    Row("engines-empty", ("check", "good.req", "--engines", ""), 2, ("--engines", "no engine"), SPEC),
    Row("engines-unknown", ("check", "good.req", "--engines", "z3"), 2, ("z3",), SPEC),
    Row("profile-unknown", ("check", "good.req", "--profile", "nope"), 2, ("nope",), SPEC),
    Row("output-empty-path", ("check", "good.req", *B, "-o", "json="), 2, ("json=",), SPEC),
    Row("output-empty-format", ("check", "good.req", *B, "-o", "=x"), 2, ("unknown format",), SPEC),
    Row("output-format-twice", ("check", "good.req", *B, "-o", "json=a", "-o", "json=b"), 2, ("json",), SPEC),
    Row("output-unknown-format", ("check", "good.req", *B, "-o", "bogus=x.txt"), 2, ("bogus",), SPEC),
    Row("output-missing-parent", ("check", "good.req", *B, "-o", "no/such/out.txt"), 2, ("no/such", "does not exist"),
        SPEC),
    Row("output-folder", ("check", "good.req", *B, "-o", "."), 2, ("folder",), SPEC),
    Row("output-symlink-loop", ("check", "good.req", *B, "-f", "json", "-o", "loop1"), 2, ("loop1", "symbolic links"),
        {**SPEC, "loop1": _symlink("loop2", "loop1"), "loop2": _symlink("loop1", "loop2")}),
    Row("output-dangling-link-missing-folder", ("check", "good.req", *B, "-f", "json", "-o", "dl"), 2,
        ("dl", "nowhere", "does not exist"), {**SPEC, "dl": _symlink("nowhere/x.json", "dl")}),
    Row("output-dev-full", ("check", "good.req", *B, "-f", "json", "-o", "/dev/full"), 2, ("/dev/full", "space"), SPEC),
    Row("output-dev-null", ("check", "good.req", *B, "-f", "json", "-o", "/dev/null"), 0, (), SPEC),
    Row("emit-tests-onto-file", ("check", "good.req", *B, "--emit-tests", "good.py"), 2, ("good.py", "not a folder"),
        SPEC),
    # ---- export -o: special files written through, never replaced ----
    Row("export-dev-null", ("export", "good.req", "--to", "icontract", "-o", "/dev/null"), 0, (), SPEC),
    Row("export-fifo", ("export", "good.req", "--to", "icontract", "-o", "out.fifo"), 0, (),
        {**SPEC, "out.fifo": _fifo("out.fifo")}),
    Row("export-through-symlink", ("export", "good.req", "--to", "pytest", "-o", "link.py"), 0, (),
        {**SPEC, "real.py": "", "link.py": _symlink("real.py", "link.py")}, ("real.py",)),
    Row("export-dangling-symlink", ("export", "good.req", "--to", "pytest", "-o", "link.py"), 0, (),
        {**SPEC, "link.py": _symlink("made.py", "link.py")}, ("made.py",)),
    Row("export-missing-parent", ("export", "good.req", "--to", "icontract", "-o", "a/b/c.py"), 2, ("a/b",), SPEC),
    Row("export-folder", ("export", "good.req", "--to", "icontract", "-o", "sub"), 2, ("sub", "folder"),
        {**SPEC, "sub": _folder("sub")}),
    Row("export-no-target", ("export", "x.req", "--to", "icontract"), 2, ("target",), {"x.req": CASE_REQ}),
    # ---- targets ----
    Row("target-not-utf8", ("check", "good.req", *B, "--target", "lat.py"), 3, ("A-1", "unknown"),
        {**SPEC, "lat.py": b'def add(a, b):\n    return "caf\xe9"\n'}),
    Row("target-not-utf8-lint", ("lint", "good.req", "--target", "lat.py"), 2, ("lat.py", "utf-8"),
        {**SPEC, "lat.py": b'def add(a, b):\n    return "caf\xe9"\n'}),
    Row("target-nul-bytes-lint", ("lint", "good.req", "--target", "nul.py"), 2, ("nul.py", "null bytes"),
        {**SPEC, "nul.py": b"\x00\x00"}),
    Row("target-syntax-error-lint", ("lint", "good.req", "--target", "syn.py"), 2, ("syn.py", "line 2"),
        {**SPEC, "syn.py": "def add(a, b):\n    return a +\n"}),
    Row("target-device", ("check", "good.req", *B, "--target", "/dev/null"), 2, ("/dev/null", "not a regular file"),
        SPEC),
    Row("target-missing", ("check", "good.req", *B, "--target", "missing.py"), 2, ("missing.py", "does not exist"),
        SPEC),
    Row("target-folder", ("check", "good.req", *B, "--target", "."), 2, ("'.'",), SPEC),
    Row("target-no-such-function", ("lint", "good.req", "--target", "noadd.py"), 2, ("good.req:4:10", "EG211"),
        {**SPEC, "noadd.py": "x = 1\n"}),
    Row("target-line-missing-file", ("lint", "x.req"), 2, ("x.req:2", "gone.py"),
        {"x.req": GOOD_REQ.replace("good.py", "gone.py")}),
    # ---- explain / diff on bad report files ----
    Row("report-truncated", ("explain", "r.json", "R-1"), 2, ("r.json", "not JSON"), {"r.json": _report_json()[:500]}),
    Row("report-list", ("explain", "r.json", "R-1"), 2, ("r.json", "not a gap report"), {"r.json": "[]"}),
    Row("report-empty-object", ("explain", "r.json", "R-1"), 2, ("r.json", "schema_version"), {"r.json": "{}"}),
    Row("report-null", ("explain", "r.json", "R-1"), 2, ("r.json",), {"r.json": "null"}),
    Row("report-array-bomb", ("explain", "r.json", "R-1"), 2, ("r.json", "nested"),
        {"r.json": "[" * 100000 + "]" * 100000}),
    Row("report-object-bomb", ("explain", "r.json", "R-1"), 2, ("r.json", "nested"),
        {"r.json": '{"a":' * 50000 + "1" + "}" * 50000}),
    Row("report-future-schema", ("explain", "r.json", "R-1"), 2, ("r.json", "schema"),
        {"r.json": _mutated_report(lambda d: d.__setitem__("schema_version", "99.0"))}),
    Row("report-requirements-string", ("explain", "r.json", "R-1"), 2, ("requirements",),
        {"r.json": _mutated_report(lambda d: d.__setitem__("requirements", "x"))}),
    Row("report-duplicate-id", ("explain", "r.json", "R-1"), 2, ("r.json", "more than once"),
        {"r.json": _mutated_report(lambda d: d.__setitem__("requirements", d["requirements"] * 2))}),  # type: ignore[operator]
    Row("diff-duplicate-id", ("diff", "rep.json", "r.json"), 2, ("r.json", "more than once"),
        {**REPORT, "r.json": _mutated_report(lambda d: d.__setitem__("requirements", d["requirements"] * 2))}),  # type: ignore[operator]
    Row("report-utf16", ("explain", "r.json", "R-1"), 2, ("r.json:1:1", "UTF-8"), {"r.json": b"\xff\xfe{}"}),
    Row("report-nan", ("explain", "r.json", "R-1"), 2, ("r.json",), {"r.json": "NaN"}),
    Row("report-folder", ("explain", ".", "R-1"), 2, ("folder",)),
    Row("report-missing", ("explain", "gone.json", "R-1"), 2, ("gone.json",)),
    Row("report-dev-null", ("explain", "/dev/null", "R-1"), 2, ("/dev/null", "not JSON")),
    Row("explain-unknown-id", ("explain", "rep.json", "NOPE"), 2, ("NOPE", "R-1"), REPORT),
    Row("explain-empty-id", ("explain", "rep.json", ""), 2, ("R-1",), REPORT),
    Row("diff-bomb", ("diff", "rep.json", "b.json"), 2, ("b.json", "nested"),
        {**REPORT, "b.json": "[" * 100000 + "]" * 100000}),
    Row("diff-truncated", ("diff", "rep.json", "t.json"), 2, ("t.json", "not JSON"),
        {**REPORT, "t.json": _report_json()[:100]}),
    Row("diff-same", ("diff", "rep.json", "rep.json"), 0, ("same",), REPORT),
    Row("schema-extra-argument", ("schema", "extra"), 2, ("extra",)),
    # ---- check-config ----
    Row("config-wrong-type", ("check-config", "cfg.req", "c.json"), 2, ("c.json", "datasets[0].days", "forty"),
        {"cfg.req": CFG_REQ, "c.json": '{"datasets": [{"name": "a", "days": "forty"}]}'}),
    Row("config-list-top", ("check-config", "cfg.req", "c.json"), 2, ("c.json", "mapping"),
        {"cfg.req": CFG_REQ, "c.json": "[1, 2]"}),
    Row("config-json-bomb", ("check-config", "cfg.req", "c.json"), 2, ("c.json",),
        {"cfg.req": CFG_REQ, "c.json": "[" * 100000 + "]" * 100000}),
    Row("config-bad-yaml", ("check-config", "cfg.req", "c.yaml"), 2, ("c.yaml", "YAML", "line 2"),
        {"cfg.req": CFG_REQ, "c.yaml": "a: [\n"}),
    Row("config-yaml-python-tag", ("check-config", "cfg.req", "c.yaml"), 2, ("c.yaml", "YAML"),
        {"cfg.req": CFG_REQ, "c.yaml": '!!python/object/apply:os.system ["touch PWNED"]\n'}),
    Row("config-infinite-int", ("check-config", "cfg.req", "c.json"), 2, ("c.json", "inf"),
        {"cfg.req": CFG_REQ, "c.json": '{"datasets": [{"name": "a", "days": 1e999}]}'}),
    Row("config-unknown-extension", ("check-config", "cfg.req", "c.ini"), 2, ("c.ini",),
        {"cfg.req": CFG_REQ, "c.ini": "[x]\n"}),
    Row("config-unknown-name", ("check-config", "cfg.req", "c.json", "--config", "nope"), 2, ("nope",),
        {"cfg.req": CFG_REQ, "c.json": '{"datasets": []}'}),
    Row("config-timeout-inf", ("check-config", "cfg.req", "c.json", "--timeout", "inf"), 2, ("--timeout",),
        {"cfg.req": CFG_REQ, "c.json": '{"datasets": []}'}),
    Row("config-spec-without-config", ("check-config", "good.req", "c.json"), 2, ("config",),
        {**SPEC, "c.json": "{}"}),
    # ---- author ----
    Row("author-latin1-prose", ("author", "p.md"), 2, ("p.md:1:4", "EG100", "byte offset 3"), {"p.md": b"caf\xe9 x\n"}),
    Row("author-folder", ("author", "."), 2, ("EG100", "folder")),
    Row("author-missing", ("author", "gone.md"), 2, ("gone.md", "EG100")),
    Row("author-target-not-utf8", ("author", "p.md", "--target", "lat.py"), 2, ("lat.py:2:16", "EG100"),
        {"p.md": "add returns a + b.\n", "lat.py": b'def add(a, b):\n    return "caf\xe9"\n'}),
    Row("author-output-missing-parent", ("author", "p.md", "-o", "no/x.req"), 2, ("no",), {"p.md": "x.\n"}),
    Row("author-llm-url-not-a-url", ("author", "p.md", "--engine", "llm", "--base-url", "not a url", "--model", "m",
                                     "--llm-timeout", "1"), 2, ("not a url", "http"), {"p.md": "x.\n"}),
    Row("author-llm-file-url", ("author", "p.md", "--engine", "llm", "--base-url", "file:///etc", "--model", "m",
                                "--llm-timeout", "1"), 2, ("file:///etc", "http"), {"p.md": "x.\n"}),
    Row("author-llm-no-config", ("author", "p.md", "--engine", "llm"), 2, ("base URL",), {"p.md": "x.\n"}),
    Row("author-llm-timeout-nan", ("author", "p.md", "--llm-timeout", "nan"), 2, ("--llm-timeout",), {"p.md": "x.\n"}),
    Row("author-py-syntax-error", ("author", "s.py"), 2, ("s.py", "line 3"),
        {"s.py": 'def f(x):\n    """Returns x + 1."""\n    return x +\n'}),
    # ---- gate ----
    Row("gate-no-repo", ("gate", "norepo", "--spec", "good.req", "--budget", "1"), 2, ("not inside a git repository",),
        {"norepo/good.py": GOOD_PY, "norepo/good.req": GOOD_REQ}),
    Row("gate-bad-base", ("gate", "repo", "--spec", "good.req", "--base", "HEAD~9"), 2, ("HEAD~9", "not a commit"),
        {"repo": _git_repo}),
    Row("gate-shell-in-base", ("gate", "repo", "--spec", "good.req", "--base", "HEAD;touch x"), 2, ("not a commit",),
        {"repo": _git_repo}),
    Row("gate-option-as-base", ("gate", "repo", "--spec", "good.req", "--base", "--output=gitout"), 2,
        ("not a commit",), {"repo": _git_repo}),
    Row("gate-bad-head", ("gate", "repo", "--spec", "good.req", "--head", "deadbeef"), 2, ("deadbeef",),
        {"repo": _git_repo}),
    Row("gate-missing-spec", ("gate", "repo", "--spec", "nope.req"), 2, ("nope.req",), {"repo": _git_repo}),
    Row("gate-missing-patch", ("gate", "repo", "--spec", "good.req", "--patch", "gone.diff"), 2, ("gone.diff",),
        {"repo": _git_repo}),
    Row("gate-garbage-patch", ("gate", "repo", "--spec", "good.req", "--patch", "bad.diff"), 2, ("bad.diff",),
        {"repo": _git_repo, "bad.diff": "garbage\n"}),
    Row("gate-binary-patch", ("gate", "repo", "--spec", "good.req", "--patch", "bin.diff"), 2, ("bin.diff",),
        {"repo": _git_repo, "bin.diff": b"\x00\x01\xff"}),
    Row("gate-staged-and-head", ("gate", "repo", "--spec", "good.req", "--staged", "--head", "HEAD"), 2,
        ("--staged",), {"repo": _git_repo}),
    Row("gate-diff-budget-nan", ("gate", "repo", "--spec", "good.req", "--diff-budget", "nan"), 2, ("--diff-budget",),
        {"repo": _git_repo}),
    Row("gate-fail-on-unknown", ("gate", "repo", "--spec", "good.req", "--fail-on", "nope"), 2, ("nope",),
        {"repo": _git_repo}),
    Row("gate-binary-target", ("gate", "repo", "--spec", "good.req", "--target", "blob.bin", "--budget", "1"), 2,
        ("blob",), {"repo": _git_repo}),
    Row("gate-repo-is-file", ("gate", "good.py", "--spec", "good.req"), 2, ("good.py",), SPEC),
    Row("gate-output-folder", ("gate", "repo", "--spec", "good.req", "-o", "repo"), 2, ("folder",), {"repo": _git_repo}),
    # ---- import / compare ----
    Row("import-missing-src", ("import", "icontract", "gone", "-o", "out"), 2, ("gone",)),
    Row("import-output-is-file", ("import", "pep316", ".", "-o", "good.py"), 2, ("good.py", "not a folder"), SPEC),
    Row("import-output-dev-null", ("import", "deal", ".", "-o", "/dev/null"), 2, ("/dev/null", "not a folder"), SPEC),
    Row("import-unknown-format", ("import", "jml", ".", "-o", "out"), 2, ("jml",)),
    Row("compare-unknown-adapter", ("compare", "nope:x"), 2, ("nope",)),
    Row("compare-missing-dataset", ("compare", "gone.jsonl"), 2, ("gone.jsonl",)),
    Row("compare-budget-nan", ("compare", "gone.jsonl", "--budget", "nan"), 2, ("--budget",)),
]


def _snapshot(root: Path) -> dict[str, tuple[object, ...]]:
    """Every entry under ``root`` (not followed): type, mode, size and content hash of regular files."""
    out: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = os.lstat(p)
            rel = str(p.relative_to(root))
            if stat.S_ISREG(st.st_mode):
                out[rel] = ("file", st.st_mode, st.st_size, hashlib.sha256(p.read_bytes()).hexdigest())
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            else:
                out[rel] = ("other", stat.S_IFMT(st.st_mode), st.st_ino)
    return out


def _special(path: str) -> tuple[int, int, int]:
    st = os.stat(path)
    return stat.S_IFMT(st.st_mode), st.st_rdev, st.st_ino


def _drain_fifos(root: Path, stop: threading.Event) -> list[threading.Thread]:
    """Open every FIFO under ``root`` for reading (so a writer does not block) until ``stop``."""
    threads = []
    for p in root.rglob("*"):
        if stat.S_ISFIFO(os.lstat(p).st_mode):
            def drain(path: Path = p) -> None:
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                try:
                    while not stop.is_set():
                        try:
                            os.read(fd, 65536)
                        except BlockingIOError:
                            pass
                        time.sleep(0.01)
                finally:
                    os.close(fd)
            t = threading.Thread(target=drain, daemon=True)
            t.start()
            threads.append(t)
    return threads


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input(row: Row, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rel, content in row.files.items():
        if callable(content):
            content(tmp_path)
            continue
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    specials = {d: _special(d) for d in ("/dev/null", "/dev/full", "/dev/zero")}
    before = _snapshot(tmp_path)
    stop = threading.Event()
    drains = _drain_fifos(tmp_path, stop)
    try:
        result = run_cli(*row.args)
    finally:
        stop.set()
        for t in drains:
            t.join(2)
    text = result.stdout + result.stderr
    assert "Traceback" not in text and "internal error" not in text, text[-3000:]
    assert result.exit_code == row.code, f"exit {result.exit_code}, expected {row.code}:\n{text[-3000:]}"
    for word in row.words:
        assert word in text, f"{word!r} not in the output:\n{text[-3000:]}"
    after = _snapshot(tmp_path)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed <= set(row.outputs), f"changed outside the intended outputs: {sorted(changed - set(row.outputs))}"
    for rel in row.outputs:
        assert rel in after and after[rel][0] == "file", f"{rel} was not written as a file"
    assert {d: _special(d) for d in specials} == specials, "a special file was replaced"


# ---- subprocess rows: MCP startup flags, signals ----


def _evalgap(args: list[str], cwd: Path, env: dict[str, str] | None = None,
             timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evalgap", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("flags,word", [(["--max-budget", "nan"], "--max-budget"),
                                        (["--max-budget", "inf"], "--max-budget"),
                                        (["--max-budget", "0"], "--max-budget"),
                                        (["--max-examples", "0"], "--max-examples"),
                                        (["--engines", "z3"], "z3"),
                                        (["--root", "gone"], "gone")],
                         ids=["mcp-budget-nan", "mcp-budget-inf", "mcp-budget-zero", "mcp-examples-zero",
                              "mcp-engine-unknown", "mcp-root-missing"])
def test_mcp_startup_flags(flags: list[str], word: str, tmp_path: Path) -> None:
    proc = _evalgap(["mcp", *flags], tmp_path)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 2, text
    assert word in text and "Traceback" not in text and "internal error" not in text, text


def test_lsp_unknown_flag(tmp_path: Path) -> None:
    proc = _evalgap(["lsp", "--tcp"], tmp_path)
    assert proc.returncode == 2 and "--tcp" in proc.stderr and "Traceback" not in proc.stderr


def _marked_pids(marker: str) -> set[int]:
    """Processes whose environment carries ``marker`` (the CLI and everything it started)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.add(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.adversarial
@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["sigint", "sigterm"])
def test_signal_during_run_leaves_nothing(sig: signal.Signals, code: int, tmp_path: Path) -> None:
    (tmp_path / "good.req").write_text(GOOD_REQ)
    (tmp_path / "good.py").write_text("import time\ntime.sleep(1000)\n" + GOOD_PY)  # hangs at import
    marker = f"EVALGAP_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, marker.split("=")[0]: marker.split("=")[1]}
    proc = subprocess.Popen([sys.executable, "-m", "evalgap", "check", "good.req", "--budget", "1", "-q",
                             "--no-cache", "--engines", "crosshair"], cwd=tmp_path, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 8
    while len(_marked_pids(marker) - {proc.pid}) == 0 and time.monotonic() < deadline:
        time.sleep(0.2)  # wait until it has started a worker
    time.sleep(1.0)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "Traceback" not in err and "internal error" not in err, err
    deadline = time.monotonic() + 10
    while _marked_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _marked_pids(marker), "processes left behind after the signal"
