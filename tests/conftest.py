"""Shared fixtures: the repository root, the case studies, the benchmark data (skipped when absent), an
in-process CLI runner, and a private evalgap result cache for every test (never the user's)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from evalgap.verifier.cli import cli

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "case_studies"
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture()
def shared_data() -> Path:
    """``../shared/data`` beside the clone; skips the test where it is absent (users' clones)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"benchmark data not found at {SHARED_DATA} (only present in the project's workplace)")
    return SHARED_DATA


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_cli(*args: str) -> CliResult:
    """Run ``evalgap ARGS`` in-process and return its exit code and separate output streams."""
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return CliResult(result.exit_code, result.stdout, result.stderr)


@pytest.fixture(scope="session")
def _hypothesis_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for Hypothesis's unicode tables for the whole session (building them costs ~2 CPU s)."""
    return tmp_path_factory.mktemp("hypothesis-home")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                   _hypothesis_home: Path) -> Path:
    """Point ``EVALGAP_CACHE_DIR`` at a fresh temporary folder for each test."""
    cache = tmp_path_factory.mktemp("evalgap-cache")
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(cache))
    monkeypatch.setenv("EVALGAP_HYPOTHESIS_HOME", str(_hypothesis_home))
    monkeypatch.delenv("EVALGAP_PROFILE", raising=False)
    return cache
