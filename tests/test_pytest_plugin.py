"""The pytest plugin (issue 21): a fresh project (a module, ``.req`` specs, a pyproject.toml) runs under pytest
with one item per requirement; refuted fails with the counterexample and a reproducer, unknown follows
``--evalgap-unknown``, not-formalized skips with its category; ``-k``, ``--lf`` and junitxml work; and the
user's own icontract checks still raise after the specs ran (CrossHair never enters the pytest process)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

TARGET = """\
def double(n: int) -> int:
    return n + n if n != 7 else 15


def half(n: int) -> int:
    return n // 2
"""
SPEC = """\
spec demo "plugin test"
  target: ../demo.py

function double(n: int) -> int
  requirement D-1 "Returns twice its argument."
    ensures result == 2 * n

function half(n: int) -> int
  requirement H-0 "Only even numbers."
    requires n % 2 == 0
  requirement H-1 "Returns half its argument."
    ensures 2 * result == n

requirement X-1 "Never leaks data."
  informal exclusion "no notion of data here"
"""
BROKEN_SPEC = """\
spec broken "an unimportable target"
  target: ../broken.py

function f(n: int) -> int
  requirement B-1 "Returns its argument."
    ensures result == n
"""
USER_TESTS = """\
import sys

import icontract
import pytest


@icontract.require(lambda n: n > 0)
def positive(n: int) -> int:
    return n


def test_icontract_still_raises_after_the_specs_ran() -> None:
    with pytest.raises(icontract.ViolationError):
        positive(-1)


def test_crosshair_never_entered_this_process() -> None:
    assert "crosshair" not in sys.modules
"""
PYPROJECT = """\
[tool.evalgap]
specs = ["specs/*.req"]
budget = 2
engines = ["crosshair"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""


@pytest.fixture()
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A fresh project: demo.py (double is wrong at 7), an unimportable broken.py, two specs, user tests."""
    pytester.makefile(".py", demo=TARGET, broken="raise ImportError('this module cannot be imported')\n")
    (pytester.path / "specs").mkdir()
    (pytester.path / "specs" / "demo.req").write_text(SPEC, encoding="utf-8")
    (pytester.path / "specs" / "broken.req").write_text(BROKEN_SPEC, encoding="utf-8")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_user.py").write_text(USER_TESTS, encoding="utf-8")
    (pytester.path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return pytester


def test_a_fresh_project_runs_its_specs_as_tests(project: pytest.Pytester) -> None:
    """One subprocess run (a clean interpreter: CrossHair cannot hide in an import of another test), specs
    first so the user's icontract test runs after them; then ``--lf`` with unknown as xfail."""
    result = project.runpytest_subprocess("specs", "tests", "-rA", "--junitxml=junit.xml")
    result.assert_outcomes(failed=2, passed=3, skipped=2)
    out = result.stdout.str()
    assert "FAILED specs/demo.req::D-1" in out
    assert "FAILED specs/broken.req::B-1" in out
    assert "PASSED specs/demo.req::H-1" in out
    assert "counterexample: double(7)" in out and "reproducer (crosshair):" in out
    assert "result = double(n)" in out  # the reproducer's call
    assert "B-1 unknown: crosshair: import error" in out
    assert "not-formalized: exclusion: no notion of data here" in out
    assert "specs/demo.req:14: not-formalized" in out  # the skip points at the requirement's line
    assert "PASSED tests/test_user.py::test_icontract_still_raises_after_the_specs_ran" in out
    assert "PASSED tests/test_user.py::test_crosshair_never_entered_this_process" in out
    assert "Captured evalgap call" in out and "verified: all paths exhausted" in out  # H-1's evidence

    cases = {c.get("name"): c for c in ET.parse(project.path / "junit.xml").getroot().iter("testcase")}
    assert {"D-1", "H-0", "H-1", "X-1", "B-1"} <= set(cases)
    assert cases["D-1"].get("classname") == "specs.demo.req"
    assert cases["D-1"].find("failure") is not None and cases["H-1"].find("failure") is None
    props = {p.get("name"): p.get("value") for p in cases["D-1"].iter("property")}
    assert props == {"evalgap_verdict": "refuted"}

    again = project.runpytest_subprocess("--lf", "--evalgap-unknown=xfail", "-rA")
    again.assert_outcomes(failed=1, xfailed=1, deselected=3)
    assert "XFAIL specs/broken.req::B-1 - unknown: crosshair: import error" in again.stdout.str()


def test_evalgap_flag_k_and_a_broken_spec(project: pytest.Pytester) -> None:
    """Without ``specs`` in pyproject, ``--evalgap`` collects .req files; ``-k`` selects one requirement (the
    check of its file still runs once); a spec that does not parse is a collection error with the caret.
    In subprocesses: an in-process pytester run unloads the modules it imported, leaving this process with
    two copies of evalgap's classes."""
    (project.path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    (project.path / "specs" / "bad.req").write_text('spec bad "x"\nrequirement R-1 "p"\n  ensures (1 +\n',
                                                    encoding="utf-8")
    plain = project.runpytest_subprocess("specs")
    plain.assert_outcomes()  # no --evalgap, no specs key: .req files are not collected
    result = project.runpytest_subprocess("--evalgap", "specs", "-k", "H-1", "--evalgap-budget", "2",
                                         "--evalgap-engines", "crosshair", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=1)
    out = result.stdout.str()
    assert "ERROR collecting specs/bad.req" in out and "error EG1" in out and "^" in out
    assert "Traceback" not in out
    assert "4 deselected" in out


def test_specs_key_is_accepted_by_the_settings(tmp_path: Path) -> None:
    """``[tool.evalgap] specs`` is a known key (so ``evalgap check`` accepts the same pyproject) and changes
    no setting; a wrong type is still refused."""
    import evalgap
    from evalgap.verifier.errors import UsageError

    (tmp_path / "pyproject.toml").write_text('[tool.evalgap]\nspecs = ["a.req"]\nbudget = 4\n', encoding="utf-8")
    opts = evalgap.settings(tmp_path)
    assert opts.budget_s == 4.0 and "specs" not in opts.sources
    (tmp_path / "pyproject.toml").write_text('[tool.evalgap]\nspecs = "a.req"\n', encoding="utf-8")
    with pytest.raises(UsageError, match="specs"):
        evalgap.settings(tmp_path)
