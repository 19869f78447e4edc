"""Shared fixtures: the repository root, the case studies, the benchmark data (skipped when absent), and an
in-process CLI runner."""

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


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden``: rewrite tests/golden/*.json from the current verdicts (also EVALGAP_UPDATE_GOLDEN=1)."""
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of the case studies from the current verdicts")


@pytest.fixture()
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when the golden files are to be rewritten instead of compared."""
    import os

    return bool(request.config.getoption("--update-golden")) or os.environ.get("EVALGAP_UPDATE_GOLDEN") == "1"
