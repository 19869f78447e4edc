"""The library API (issue 15): ``evalgap.check`` and friends return typed results, raise the packages'
exceptions (never SystemExit), send progress events, and every front end goes through them."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import evalgap
from egtest import ROOT, run_cli
from evalgap.verifier.events import CheckFinished, CheckStarted, Event, RequirementFinished, RequirementStarted
from gate_repos import git

SPEC = """\
spec t "api test"
  target: {target}

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
TARGET = """\
def double(n: int) -> int:
    return n + n if n != 7 else 15


def half(n: int) -> int:
    return n // 2
"""
QUICK = evalgap.Settings(budget_s=2, jobs=2, engines=("crosshair",), cache=False, analysis=False)


def _case(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "t.py").write_text(TARGET, encoding="utf-8")
    spec = tmp_path / "t.req"
    spec.write_text(SPEC.format(target="t.py"), encoding="utf-8")
    return spec


def test_readme_example_runs_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The README's Python example, executed as written (from the repository root)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(import evalgap\n.*?)```", readme, re.S)
    assert block is not None, "README has no ```python example starting with `import evalgap`"
    code = block.group(1)
    assert len(code.strip().splitlines()) <= 6
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
    out = capsys.readouterr().out.splitlines()
    verdicts = dict(line.split(" ", 1) for line in out[:-1])
    assert verdicts["KV-1"] == "refuted"  # the agent's store never stores values
    assert verdicts["KV-5"] == "not-formalized"
    assert out[-1] == "1"


def test_check_returns_a_typed_report_and_sends_events(tmp_path: Path) -> None:
    events: list[Event] = []
    report = evalgap.check(_case(tmp_path), settings=QUICK, on_event=events.append)
    assert isinstance(report, evalgap.GapReport)
    by_id = {r.id: r for r in report.requirements}
    assert by_id["D-1"].verdict is evalgap.Verdict.REFUTED
    assert "7" in (by_id["D-1"].verdicts[0].counterexample or "")
    assert by_id["H-1"].verdict in (evalgap.Verdict.VERIFIED, evalgap.Verdict.NO_COUNTEREXAMPLE)
    assert by_id["X-1"].verdict is evalgap.Verdict.NOT_FORMALIZED
    assert isinstance(events[0], CheckStarted) and events[0].requirements == 4
    assert isinstance(events[-1], CheckFinished) and events[-1].exit_code == 1
    started = {e.id for e in events if isinstance(e, RequirementStarted)}
    finished = {e.result.id for e in events if isinstance(e, RequirementFinished)}
    assert started == {"D-1", "H-1"}  # the engines ran on the two formal requirements only
    assert finished == {"D-1", "H-0", "H-1", "X-1"}


def test_bad_input_raises_the_packages_exceptions(tmp_path: Path) -> None:
    with pytest.raises(evalgap.UsageError, match="does not exist"):
        evalgap.check(tmp_path / "missing.req", settings=QUICK)
    bad = tmp_path / "bad.req"
    bad.write_text('spec b "b"\n\nfunction f(n: int) -> int\n  requirement F-1 "x"\n    ensures result ==\n',
                   encoding="utf-8")
    with pytest.raises(evalgap.SpecError) as err:
        evalgap.check(bad, settings=QUICK)
    assert "bad.req:5:" in err.value.render() and "^" in err.value.render()
    with pytest.raises(evalgap.UsageError, match="unknown setting"):
        evalgap.settings(tmp_path, budgets=3)
    with pytest.raises(evalgap.UsageError, match="unknown engine 'z3'"):
        evalgap.settings(tmp_path, engines="z3")


def test_lint_and_load_spec_return_results(tmp_path: Path) -> None:
    spec = _case(tmp_path)
    assert evalgap.lint(spec).ok
    loaded, target, case = evalgap.load_spec(spec)
    assert loaded.spec.name == "t" and target is not None and (target.file or "").endswith("t.py") and case is None
    (tmp_path / "t.py").write_text("def double(n: int) -> int:\n    return 2 * n\n", encoding="utf-8")
    res = evalgap.lint(spec)
    assert not res.ok and {d.code for d in res.diagnostics} == {"EG211"} and "half" in res.rendered
    with pytest.raises(evalgap.SpecError):
        evalgap.load_spec(spec)


def test_settings_layers_record_their_sources(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.evalgap]\nbudget = 4\njobs = 3\n", encoding="utf-8")
    s = evalgap.settings(tmp_path, env={}, jobs=1)
    assert (s.budget_s, s.jobs, s.engines) == (4.0, 1, ("crosshair", "hypothesis"))
    assert s.sources["budget"] == "pyproject.toml" and s.sources["jobs"] == "command line"
    assert s.sources["engines"] == "default"


def test_checks_from_several_threads_agree(tmp_path: Path) -> None:
    spec = _case(tmp_path)
    serial = evalgap.check(spec, settings=QUICK)
    box: list[Any] = []
    threads = [threading.Thread(target=lambda: box.append(evalgap.check(spec, settings=QUICK))) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    want = [(r.id, r.verdict) for r in serial.requirements]
    assert [[(r.id, r.verdict) for r in rep.requirements] for rep in box] == [want, want]


def test_cli_suite_and_gate_all_go_through_evalgap_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One way through the code: patching ``evalgap.check`` is seen by ``evalgap check``, the suite run
    over a folder of cases and the gate's requirement checks."""
    real = evalgap.check
    calls: list[str] = []

    def spy(spec: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(type(spec).__name__ if not isinstance(spec, (str, Path)) else Path(spec).name)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(evalgap, "check", spy)
    spec = _case(tmp_path / "one")
    assert run_cli("check", str(spec), "--budget", "1", "--engines", "crosshair", "--no-analysis",
                   "--no-cache").exit_code == 1
    assert calls == ["t.req"]
    suite = tmp_path / "suite" / "c1"
    suite.mkdir(parents=True)
    _case(suite)
    (suite / "case.toml").write_text('[case]\nname = "c1"\nspec = "t.req"\ndefault = "agent"\n\n'
                                     '[implementations]\nagent = "t.py"\n\n[expected.agent]\n'
                                     'D-1 = "refuted"\n', encoding="utf-8")
    calls.clear()
    assert run_cli("check", str(tmp_path / "suite"), "--budget", "1").exit_code in (1, 3)
    assert calls == ["suite", "c1"]  # the folder of cases, then the one case in it
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "t.py").write_text(TARGET.replace("if n != 7 else 15", ""), encoding="utf-8")
    (repo / "t.req").write_text(SPEC.format(target="t.py"), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "t.py").write_text(TARGET, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "head")
    calls.clear()
    res = run_cli("gate", str(repo), "--spec", "t.req", "--budget", "1", "--no-behavior-diff", "-f", "json")
    assert res.exit_code == 1 and '"broken"' in res.stdout
    assert calls == ["LoadedSpec", "LoadedSpec"]  # head and base


def test_python_dash_m_evalgap_and_version() -> None:
    out = subprocess.run([sys.executable, "-m", "evalgap", "--version"], capture_output=True, text=True,
                         check=True).stdout
    first, sandbox = out.strip().splitlines()
    assert first == f"evalgap {evalgap.__version__}" and evalgap.__version__ == "0.1.0"
    assert sandbox.startswith("sandbox: os (landlock abi") or sandbox == "sandbox: python-guard"
    assert set(evalgap.__all__) <= set(dir(evalgap))
    for name in evalgap.__all__:
        assert getattr(evalgap, name) is not None
