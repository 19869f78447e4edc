"""``[tool.evalgap]`` is read once (verifier/options.py, the :class:`Settings` record) and honoured by every
command: ``check`` of one case and of a folder of cases, ``gate``, ``analyze``, ``lint`` (its ``specs``) and
the research ``compare``, ``fail_on`` included; the command line wins over it; ``-v`` says where each value
came from and cannot be combined with ``-q``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import evalgap
from evalgap.verifier.cli.main import cli
from evalgap.verifier.errors import UsageError
from evalgap.verifier.gate.model import GateOptions
from evalgap.verifier.options import project_specs, resolve_settings

SPEC = """spec mathx "Square roots"
  target: mathbad.py

function isqrt(n: int in 0..50) -> int
  requirement SQ-2 "Returns the floor of the square root."
    ensures 0 <= result and result * result <= n < (result + 1) * (result + 1)
"""
BAD_ISQRT = "def isqrt(n: int) -> int:\n    return n // 2\n"
CASE = """[case]
name = "mathx"
spec = "m.req"
default = "bad"

[implementations]
bad = "mathbad.py"

[expected.bad]
SQ-2 = "refuted"
"""


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _project(root: Path, table: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.evalgap]\n{table}\n")
    (root / "mathbad.py").write_text(BAD_ISQRT)
    (root / "m.req").write_text(SPEC)
    return root / "m.req"


class _Captured(Exception):
    def __init__(self, **seen: Any) -> None:
        super().__init__("captured")
        self.seen = seen


# ------------------------------------------------------------------ the one loader
def test_settings_record_carries_every_key(tmp_path: Path) -> None:
    _project(tmp_path, 'budget = 2\nfail_on = "refuted,smell"\ngate_fail_on = ["unexplained"]\n'
                       'analysis_timeout = 0.5\nspecs = ["*.req", "missing.req"]\nengines = ["hypothesis"]')
    s = resolve_settings({}, tmp_path)
    assert (s.budget_s, s.fail_on, s.gate_fail_on, s.analysis_timeout_s, s.engines) == (
        2.0, ("refuted", "smell"), ("unexplained",), 0.5, ("hypothesis",))
    assert s.specs == ((tmp_path / "m.req").resolve(), (tmp_path / "missing.req").resolve())
    assert s.pyproject == tmp_path / "pyproject.toml"
    assert s.sources["fail_on"] == "pyproject.toml" and s.sources["jobs"] == "default"
    assert project_specs(tmp_path / "pyproject.toml") == s.specs  # what the pytest plugin collects
    assert resolve_settings({"fail_on": ("unknown",)}, tmp_path).fail_on == ("unknown",)  # command line wins
    assert evalgap.settings(tmp_path, fail_on="bounded", analysis_timeout=2).fail_on == ("bounded",)  # library


@pytest.mark.parametrize("table, message", [
    ('fail_on = "maybe"', "fail_on (from pyproject.toml) 'maybe': unknown word 'maybe'"),
    ('gate_fail_on = ["never"]', "unknown word 'never'"),
    ("fail_on = 3", "fail_on = 3 has the wrong type"),
    ("analysis_timeout = -1", "analysis_timeout (from pyproject.toml) must be a finite, positive number"),
    ("colour = true", "unknown key 'colour'"),
])
def test_bad_entries_are_usage_errors_naming_the_file(tmp_path: Path, table: str, message: str) -> None:
    _project(tmp_path, table)
    with pytest.raises(UsageError) as info:
        resolve_settings({}, tmp_path)
    assert message in str(info.value)


# ------------------------------------------------------------------ check, one case
def test_check_honours_fail_on_and_budget_from_pyproject(tmp_path: Path) -> None:
    spec = _project(tmp_path, 'fail_on = ["unknown"]\nbudget = 2\nengines = "hypothesis"')
    res = _cli("check", str(spec), "--no-analysis", "--no-cache", "-q", "-f", "json")
    data = json.loads(res.stdout)
    assert data["summary"]["refuted"] == 1 and data["budget_s"] == 2.0
    assert res.exit_code == 0, res.output  # refuted does not fail: pyproject's fail_on is [unknown]
    strict = _cli("check", str(spec), "--no-analysis", "--no-cache", "-q", "-f", "json", "--fail-on", "refuted")
    assert strict.exit_code == 1  # the command line wins


def test_verbose_says_where_settings_came_from(tmp_path: Path) -> None:
    spec = _project(tmp_path, 'budget = 2\nengines = "hypothesis"')
    res = _cli("check", str(spec), "--no-analysis", "--no-cache", "-v", "-f", "json", "--jobs", "1")
    assert res.exit_code == 1, res.output
    assert "  budget = 2 s (pyproject.toml)" in res.stderr
    assert "  jobs = 1 (command line)" in res.stderr and "  fail_on = refuted,unknown (default)" in res.stderr
    # n: int in 0..50 is a finite domain: the enumeration engine refutes it before Hypothesis would run
    assert "[1/1] SQ-2: refuted" in res.stderr and "    enumeration: refuted: " in res.stderr
    both = _cli("check", str(spec), "-q", "-v")
    assert both.exit_code == 2 and "cannot be combined" in both.stderr


# ------------------------------------------------------------------ check, a folder of cases
def test_folder_check_honours_the_folders_pyproject(tmp_path: Path) -> None:
    root = tmp_path / "cases"
    case = root / "mathx"
    _project(case, "")
    (case / "pyproject.toml").unlink()
    (case / "case.toml").write_text(CASE)
    (root / "pyproject.toml").write_text('[tool.evalgap]\nbudget = 1.5\nengines = ["hypothesis"]\n'
                                         'fail_on = ["unknown"]\n')
    res = _cli("check", str(root), "-f", "json")
    data = json.loads(res.stdout)
    assert data["budget_s"] == 1.5 and data["rows"][0]["refuted"] == 1 and data["rows"][0]["matches"]
    assert res.exit_code == 0, res.output  # the refuted case does not fail under fail_on = [unknown]
    (root / "pyproject.toml").write_text('[tool.evalgap]\nbudget = 1.5\nengines = ["hypothesis"]\n')
    assert _cli("check", str(root), "-f", "json").exit_code == 1


# ------------------------------------------------------------------ gate
def test_gate_takes_budget_engines_and_gate_fail_on_from_the_repositorys_pyproject(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, 'budget = 4\nengines = "hypothesis"\nhypothesis_examples = 30\n'
                       'gate_fail_on = ["still-refuted", "unexplained"]\njobs = 3')

    def fake_gate(repo: Any, spec: Any, **kw: Any) -> Any:
        raise _Captured(options=kw["options"])
    monkeypatch.setattr(evalgap, "gate", fake_gate)
    res = _cli("gate", str(tmp_path), "--spec", "m.req")
    assert isinstance(res.exception, _Captured), res.output
    opts = res.exception.seen["options"]
    assert (opts.budget_s, opts.diff_budget_s, opts.engines, opts.hypothesis_examples, opts.jobs) == (
        4.0, 4.0, ("hypothesis",), 30, 3)
    assert opts.fail_on_still_refuted and opts.fail_on_unexplained
    res = _cli("gate", str(tmp_path), "--spec", "m.req", "--budget", "1", "--fail-on", "still-refuted")
    assert isinstance(res.exception, _Captured)
    opts = res.exception.seen["options"]
    assert opts.budget_s == 1.0 and opts.fail_on_still_refuted and not opts.fail_on_unexplained


def test_library_gate_without_options_reads_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, 'budget = 4\ngate_fail_on = "unexplained"')
    import evalgap.verifier.gate.run as run

    def fake_run_gate(*args: Any) -> Any:
        raise _Captured(options=args[-1])
    monkeypatch.setattr(run, "run_gate", fake_run_gate)
    with pytest.raises(_Captured) as info:
        evalgap.gate(tmp_path, "m.req")
    assert info.value.seen["options"] == GateOptions.from_settings(resolve_settings({}, tmp_path))
    assert info.value.seen["options"].budget_s == 4.0 and info.value.seen["options"].fail_on_unexplained


# ------------------------------------------------------------------ analyze, lint, compare
def test_analyze_takes_its_solver_timeout_from_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _project(tmp_path, "analysis_timeout = 0.25")

    def fake_analyze(spec: Any, **kw: Any) -> Any:
        raise _Captured(timeout=kw["timeout_s"])
    monkeypatch.setattr(evalgap, "analyze", fake_analyze)
    res = _cli("analyze", str(spec))
    assert isinstance(res.exception, _Captured) and res.exception.seen["timeout"] == 0.25
    res = _cli("analyze", str(spec), "--timeout", "2")
    assert isinstance(res.exception, _Captured) and res.exception.seen["timeout"] == 2.0
    res = _cli("check-config", str(spec), str(tmp_path / "c.json"))
    assert isinstance(res.exception, _Captured) and res.exception.seen["timeout"] == 0.25
    _project(tmp_path, "fail_on = 7")
    bad = _cli("analyze", str(spec))
    assert bad.exit_code == 2 and "fail_on = 7 has the wrong type" in bad.stderr


def test_lint_without_arguments_lints_the_configured_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, 'specs = ["*.req"]')
    (tmp_path / "broken.req").write_text("spec x \"y\"\nfunction f(\n")
    monkeypatch.chdir(tmp_path)
    res = _cli("lint")
    assert res.exit_code == 2
    assert f"{tmp_path / 'm.req'}: ok" in res.stdout and f"{tmp_path / 'broken.req'}:2:12: error EG101" in res.stderr
    _project(tmp_path, "")
    res = _cli("lint")
    assert res.exit_code == 2 and "[tool.evalgap] specs" in res.stderr


def test_compare_takes_budget_examples_and_jobs_from_pyproject(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import evalgap.research.run as run

    _project(tmp_path, "budget = 7\nhypothesis_examples = 40\njobs = 2")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run, "resolve_dataset", lambda *a, **k: "dataset")

    def fake_run_compare(ds: Any, out: Any, opts: Any, *a: Any, **k: Any) -> Any:
        raise _Captured(opts=opts)
    monkeypatch.setattr(run, "run_compare", fake_run_compare)
    res = _cli("compare", "x.jsonl")
    assert isinstance(res.exception, _Captured), res.output
    opts = res.exception.seen["opts"]
    assert (opts.settings.crosshair_budget_s, opts.settings.hypothesis_examples, opts.jobs) == (7.0, 40, 2)
    _project(tmp_path, "")
    res = _cli("compare", "x.jsonl", "--examples", "9")
    assert isinstance(res.exception, _Captured)
    opts = res.exception.seen["opts"]
    assert (opts.settings.crosshair_budget_s, opts.settings.hypothesis_examples, opts.jobs) == (20.0, 9, 1)
