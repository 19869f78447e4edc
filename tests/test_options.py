"""Option layering: defaults <- [tool.evalgap] <- profile <- command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.verifier.errors import UsageError
from evalgap.verifier.options import PROFILES, parse_engines, resolve_budget, resolve_settings

NONE = {"budget": None, "profile": None, "jobs": None, "seed": None, "engines": None, "cache": None}


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.evalgap]\n" + table)
    sub = tmp_path / "specs" / "deep"
    sub.mkdir(parents=True)
    return sub


def test_defaults(tmp_path: Path) -> None:
    s = resolve_settings(NONE, tmp_path, env={})
    assert (s.budget_s, s.engines, s.hypothesis_examples, s.seed, s.cache, s.profile) == (
        10.0, ("crosshair", "hypothesis"), 200, None, True, None)
    assert s.jobs >= 1 and s.sources["budget"] == "default"


def test_pyproject_layer_found_from_a_subfolder(tmp_path: Path) -> None:
    sub = _project(tmp_path, 'budget = 7\nengines = "crosshair"\nhypothesis_examples = 20\ncache = false\n')
    s = resolve_settings(NONE, sub, env={})
    assert (s.budget_s, s.engines, s.hypothesis_examples, s.cache) == (7.0, ("crosshair",), 20, False)
    assert s.sources["budget"] == "pyproject.toml"


def test_profile_overrides_pyproject_and_cli_overrides_profile(tmp_path: Path) -> None:
    sub = _project(tmp_path, "budget = 7\nhypothesis_examples = 20\n")
    s = resolve_settings({**NONE, "profile": "ci"}, sub, env={})
    assert (s.budget_s, s.hypothesis_examples, s.profile) == (PROFILES["ci"]["budget"], 100, "ci")
    s = resolve_settings({**NONE, "profile": "ci", "budget": 1.5}, sub, env={})
    assert s.budget_s == 1.5 and s.sources["budget"] == "command line"
    s = resolve_settings(NONE, sub, env={"EVALGAP_PROFILE": "thorough"})
    assert s.budget_s == 60.0 and s.hypothesis_examples == 1000
    s = resolve_settings({**NONE, "profile": "quick"}, sub, env={"EVALGAP_PROFILE": "thorough"})
    assert s.budget_s == 3.0  # --profile beats the environment


def test_profile_named_in_pyproject(tmp_path: Path) -> None:
    sub = _project(tmp_path, 'profile = "quick"\nseed = 42\n')
    s = resolve_settings(NONE, sub, env={})
    assert s.profile == "quick" and s.budget_s == 3.0 and s.seed == 42


@pytest.mark.parametrize("table, message", [
    ("budgett = 3\n", "unknown key 'budgett'"),
    ('budget = "fast"\n', "wrong type"),
    ("jobs = true\n", "wrong type"),
    ('engines = "crosshair,z3"\n', "unknown engine 'z3'"),
    ('profile = "turbo"\n', "unknown profile 'turbo'"),
    ("budget = -1\n", "positive"),
])
def test_bad_pyproject_is_a_usage_error(tmp_path: Path, table: str, message: str) -> None:
    sub = _project(tmp_path, table)
    with pytest.raises(UsageError, match=message):
        resolve_settings(NONE, sub, env={})


def test_parse_engines_and_resolve_budget() -> None:
    assert parse_engines("hypothesis, crosshair,hypothesis") == ("hypothesis", "crosshair")
    with pytest.raises(UsageError):
        parse_engines("")
    assert resolve_budget(None, "quick") == 3.0 and resolve_budget(4.0, None) == 4.0
