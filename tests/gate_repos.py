"""Build the gate case studies (tests/fixtures/gate/<case>/) as small git repositories."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "gate"
_ENV_ARGS = ["-c", "user.name=evalgap-test", "-c", "user.email=test@evalgap.invalid", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its standard output (raises on failure)."""
    return subprocess.run(["git", *_ENV_ARGS, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def build_repo(case: str, dest: Path) -> Path:
    """``dest`` as a git repository: ``main`` holds ``v1/``; every other folder of the case is a branch
    of the same name (``v2``, ``proxy``, ...) with that folder's files copied over the base."""
    src = FIXTURES / case
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "init", "-q", "-b", "main")
    shutil.copytree(src / "v1", dest, dirs_exist_ok=True)
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", f"{case}: base")
    for version in sorted(p.name for p in src.iterdir() if p.is_dir() and p.name != "v1"):
        git(dest, "checkout", "-q", "-b", version, "main")
        shutil.copytree(src / version, dest, dirs_exist_ok=True)
        git(dest, "add", "-A")
        git(dest, "commit", "-q", "-m", f"{case}: {version}")
    git(dest, "checkout", "-q", "main")
    return dest


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` relative to the repository root; tests skip when it is absent."""
    path = Path(__file__).resolve().parents[2] / "shared" / "data"
    if not path.is_dir():
        pytest.skip(f"shared benchmark data not found at {path}")
    return path
