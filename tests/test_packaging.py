"""Packaging: no exact pins in any dependency list (they conflict with a user's own Hypothesis or CrossHair),
ranges for the libraries whose internals evalgap uses, and compare's private Hypothesis switch checked at run
time (it refuses the `hypothesis` evaluator, exit 2, with a clear message when the switch is missing)."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _all_requirements() -> list[str]:
    return [*PROJECT["dependencies"], *(r for extra in PROJECT["optional-dependencies"].values() for r in extra)]


def test_no_exact_pins_anywhere() -> None:
    pinned = [r for r in _all_requirements() if "==" in r or "===" in r]
    assert pinned == []


def _spec(name: str) -> str:
    [req] = [str(r) for r in PROJECT["dependencies"] if re.match(rf"{name}\b", r)]
    return req


def test_internals_users_have_upper_bounds_that_admit_the_installed_versions() -> None:
    from packaging.specifiers import SpecifierSet

    assert _spec("hypothesis") == "hypothesis>=6.100,<7"
    assert _spec("crosshair-tool") == "crosshair-tool>=0.0.100,<0.1"  # below CrossHair's next minor series
    for name in ("hypothesis", "crosshair-tool"):
        spec = SpecifierSet(_spec(name)[len(name):])
        assert metadata.version(name) in spec, (name, metadata.version(name))
    assert "7.0.0" not in SpecifierSet(">=6.100,<7") and "0.1.0" not in SpecifierSet(_spec("crosshair-tool")[14:])


def test_the_constant_mining_switch_exists_and_works(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis.internal.conjecture import providers

    from evalgap.research.hypothesis_switch import disable_constant_mining, switch_problem

    assert switch_problem() is None
    monkeypatch.setattr(providers, "_get_local_constants", providers._get_local_constants)  # restored after
    disable_constant_mining()
    mined = providers._get_local_constants()
    assert isinstance(mined, getattr(providers, "Constants")) and not any(len(getattr(mined, k)) for k in
                                                             ("integers", "floats", "bytes", "strings"))


def test_a_missing_switch_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis.internal.conjecture import providers

    import evalgap.research.eval_worker as worker
    from evalgap.research.hypothesis_switch import disable_constant_mining, switch_problem
    from evalgap.verifier.cli.main import cli

    monkeypatch.delattr(providers, "_get_local_constants")
    problem = switch_problem()
    assert problem is not None and "providers._get_local_constants" in problem and "hypothesis-const" in problem
    with pytest.raises(RuntimeError, match="private hypothesis.internal.conjecture.providers._get_local_constants"):
        disable_constant_mining()
    assert worker._hypothesis({"constants": "off"}) == {"outcome": "error", "reason": problem}
    res = CliRunner().invoke(cli, ["compare", "x.jsonl", "--evaluators", "tests,hypothesis"])
    assert res.exit_code == 2 and res.stderr.startswith("evalgap compare: the `hypothesis` evaluator turns off")


def test_a_hypothesis_before_constant_mining_needs_no_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    import hypothesis
    from hypothesis.internal.conjecture import providers

    from evalgap.research.hypothesis_switch import switch_problem

    monkeypatch.delattr(providers, "_get_local_constants")
    monkeypatch.setattr(hypothesis.version, "__version_info__", (6, 120, 0))
    assert switch_problem() is None
