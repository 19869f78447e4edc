"""Shared fixtures: the repository root, the case studies, the benchmark data (skipped when absent), an
in-process CLI runner, and a private evalgap result cache for every test (never the user's).

The tests import the package as users do (``import evalgap``, installed with ``pip install -e '.[test]'``)
and their shared helpers as top-level modules (``from egtest import run_cli``): pyproject.toml puts tests/
on the path (``pythonpath = ["tests"]`` in ``[tool.pytest.ini_options]``); tests/ is not a package."""

from __future__ import annotations

from pathlib import Path

import pytest
from egtest import SHARED_DATA


@pytest.fixture()
def shared_data() -> Path:
    """``../shared/data`` beside the clone; skips the test where it is absent (users' clones)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"benchmark data not found at {SHARED_DATA} (only present in the project's workplace)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def _hypothesis_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for Hypothesis's unicode tables for the whole session (building them costs ~2 CPU s)."""
    return tmp_path_factory.mktemp("hypothesis-home")


@pytest.fixture(scope="session")
def hypothesis_home(_hypothesis_home: Path) -> Path:
    """The session's ``EVALGAP_HYPOTHESIS_HOME`` (Hypothesis builds its unicode tables once), for tests that
    pass it to commands they run in their own environment (the adversarial suite)."""
    return _hypothesis_home


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                   _hypothesis_home: Path) -> Path:
    """Point ``EVALGAP_CACHE_DIR`` at a fresh temporary folder for each test, and the cache key at a session
    file (never the user's ``~/.config/evalgap/cache.key``)."""
    cache = tmp_path_factory.mktemp("evalgap-cache")
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(cache))
    monkeypatch.setenv("EVALGAP_HYPOTHESIS_HOME", str(_hypothesis_home))
    monkeypatch.setenv("EVALGAP_CACHE_KEY_FILE", str(_hypothesis_home.parent / "evalgap-cache-key" / "cache.key"))
    monkeypatch.delenv("EVALGAP_SANDBOX_MODE", raising=False)
    monkeypatch.delenv("EVALGAP_PROFILE", raising=False)
    return cache


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden``: rewrite tests/golden/*.json from the current verdicts (also EVALGAP_UPDATE_GOLDEN=1)."""
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of the case studies from the current verdicts")


@pytest.fixture()
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when the golden files are to be rewritten instead of compared."""
    import os

    return bool(request.config.getoption("--update-golden")) or os.environ.get("EVALGAP_UPDATE_GOLDEN") == "1"
