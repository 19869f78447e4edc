"""Shared fixtures: every test gets its own evalgap result cache (never the user's)."""

from __future__ import annotations

from pathlib import Path

import pytest


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
