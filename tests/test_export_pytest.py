"""`evalgap export --to pytest` and `evalgap check --emit-tests` produce test files a project can commit: run
with pytest in a subprocess from a copy of the folder moved elsewhere, they give exactly the expected pass and
fail counts. Preconditions reject inputs before the call (never a failure), `example` requirements are plain
tests, filtering does not trip Hypothesis's health checks, and no absolute folder is written into the files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from egtest import run_cli

KVSTORE = Path(__file__).resolve().parents[1] / "case_studies" / "kvstore"

ISQRT = "def isqrt(n: int) -> int:\n    r = 0\n    while (r + 1) * (r + 1) <= n:\n        r += 1\n    return r\n"
BAD_ISQRT = "def isqrt(n: int) -> int:\n    return n // 2\n"
#: A precondition that rejects half the generated inputs, a property, an example that holds and one that fails.
MATHX = """spec mathx "Square roots"
  target: mathx.py

function isqrt(n: int in -50..50) -> int
  requirement SQ-1 "Only non-negative inputs are allowed."
    requires n >= 0
  requirement SQ-2 "Returns the floor of the square root."
    ensures 0 <= result and result * result <= n < (result + 1) * (result + 1)
  requirement SQ-3 "A worked example."
    example isqrt(16) == 4
  requirement SQ-4 "A wrong worked example."
    example isqrt(15) == 4
"""


def _pytest(folder: Path) -> tuple[str, str]:
    """(the summary counts such as ``2 failed, 2 passed``, the whole output) of pytest run in ``folder``."""
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "-p", "no:evalgap",
                          "."],
                         capture_output=True, text=True, timeout=300, cwd=folder)
    last = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else ""
    return re.sub(r" in [0-9.]+s.*$", "", last.strip("= ")), res.stdout + res.stderr


def _mathx(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "mathx.py").write_text(ISQRT)
    (root / "src" / "mathbad.py").write_text(BAD_ISQRT)
    (root / "src" / "m.req").write_text(MATHX)
    return root / "src" / "m.req"


def test_exported_kvstore_and_precondition_spec_run_from_a_moved_folder(tmp_path: Path) -> None:
    first = tmp_path / "first"
    case = first / "kvstore"
    shutil.copytree(KVSTORE, case, ignore=shutil.ignore_patterns("__pycache__", "test_*.py"))
    (case / "test_ycsb.py").write_text("# the case manifest names its test file (not run here)\n")
    spec = _mathx(first / "mathx")
    (case / "tests").mkdir()
    (first / "mathx" / "tests").mkdir()
    for args, dest in ((["--target", "agent"], case / "tests" / "test_kv_agent.py"),
                      (["--target", "reference"], case / "ref" / "test_kv_reference.py"),
                      ([], first / "mathx" / "tests" / "test_mathx.py")):
        dest.parent.mkdir(exist_ok=True)
        res = run_cli("export", "--to", "pytest", str(spec if not args else case), *args, "-o", str(dest))
        assert res.exit_code == 0, res.stderr
        text = dest.read_text()
        assert str(tmp_path) not in text, "an absolute folder was written into the exported module"
        assert "startswith('[pre] ')" not in text
    mathx_text = (first / "mathx" / "tests" / "test_mathx.py").read_text()
    assert "HealthCheck.filter_too_much" in mathx_text
    plain = mathx_text[mathx_text.index("def test_SQ_3"):]
    assert "@settings" not in mathx_text[mathx_text.index("def test_SQ_2"):]  # the examples are plain tests
    assert plain.startswith("def test_SQ_3() -> None:")
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(str(first), str(moved))
    counts, out = _pytest(moved)  # one pytest run over the three exported files
    assert counts == "4 failed, 9 passed", out  # KV-7, the model requirement, is exported for both stores
    failed = sorted(re.findall(r"^FAILED (\S+)", out, re.M))
    assert failed == ["kvstore/tests/test_kv_agent.py::test_KV_1", "kvstore/tests/test_kv_agent.py::test_KV_3",
                      "kvstore/tests/test_kv_agent.py::test_KV_7",
                      "mathx/tests/test_mathx.py::test_SQ_4"], out  # KV-1, KV-3, KV-7 refuted on the agent's store
    assert "SQ-4: example 1 fails: (isqrt(15) == 4)" in out  # SQ-2 holds under SQ-1 (half the inputs rejected)


@pytest.mark.slow  # a sandboxed Hypothesis check, then two pytest runs: ~10-12 s on 2 busy cores
def test_emitted_reproducers_import_relative_to_their_file(tmp_path: Path) -> None:
    first = tmp_path / "first"
    spec = _mathx(first)
    emitted = first / "regressions"
    res = run_cli("check", str(spec), "--target", str(first / "src" / "mathbad.py"), "--engines", "hypothesis",
                  "--no-analysis", "--no-cache", "-q", "--emit-tests", str(emitted))
    assert res.exit_code == 1, res.stderr
    names = sorted(p.name for p in emitted.glob("test_*.py"))
    assert names == ["test_mathx_SQ_2_hypothesis.py", "test_mathx_SQ_3_example.py", "test_mathx_SQ_4_example.py"]
    assert not any(str(tmp_path) in (emitted / n).read_text() for n in names)
    moved = tmp_path / "elsewhere"
    shutil.move(str(first), str(moved))
    counts, out = _pytest(moved / "regressions")
    assert counts == "3 failed", out
    (moved / "src" / "mathbad.py").write_text(ISQRT)  # the fix; SQ-4's example is wrong for any isqrt
    counts, out = _pytest(moved / "regressions")
    assert counts == "1 failed, 2 passed", out
