"""The adversarial sandbox suite (issue 17): the ``adversarial`` marker, one Hypothesis home shared by the
session, and this folder on ``sys.path`` (so that helper modules here can also be imported by their plain
names, as ``tests/conftest.py`` does for ``tests/``; this suite's own modules use relative imports)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``adversarial`` marker (select the suite with ``-m adversarial``)."""
    config.addinivalue_line(
        "markers", "adversarial: a hostile target run through the evalgap commands; asserts that nothing outside "
                   "the job's folder changed (tests/adversarial)")


@pytest.fixture(scope="session")
def hypothesis_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ``EVALGAP_HYPOTHESIS_HOME`` for the session (Hypothesis builds its unicode tables once)."""
    return tmp_path_factory.mktemp("adversarial-hypothesis-home")
