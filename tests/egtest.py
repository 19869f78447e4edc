"""Helpers shared by the test modules (imported as ``egtest``; conftest.py holds only fixtures, because a
``from conftest import`` can pick up another folder's conftest.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from evalgap.verifier.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "case_studies"
SHARED_DATA = ROOT.parent / "shared" / "data"


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
