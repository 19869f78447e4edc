"""Shared fixtures: every test gets its own evalgap result cache (never the user's)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``EVALGAP_CACHE_DIR`` at a fresh temporary folder for each test."""
    cache = tmp_path_factory.mktemp("evalgap-cache")
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(cache))
    monkeypatch.delenv("EVALGAP_PROFILE", raising=False)
    return cache
