"""Verdict integrity (issue 18): targets that forge the checker's results.

Each import-time attack is its own target (``inc`` returns its argument; the spec says ``x + 1``) checked
alone, so that its patches cannot reach another requirement; the runs go in parallel (:func:`_runs`). The
``IgnoreAttempt`` attack acts at call time and is in the shared run.
"""

from __future__ import annotations

from functools import partial

import pytest

from integrity_helpers import (FORGERS, Run, assert_not_passing, check, fresh_dir, parallel,
                               plus_one_spec, sandbox, shared_probe_run, write_project)

pytestmark = pytest.mark.adversarial

_RUNS: dict[str, Run] = {}


def _run_one(name: str) -> Run:
    folder = write_project(fresh_dir(f"forged-{name}"), {
        "target.py": FORGERS[name], "forged.req": plus_one_spec(f"forged_{name}", "target.py", [("inc", "FG-1")])})
    return check(folder / "forged.req", sandbox(folder))


def _runs(name: str) -> Run:
    """The check of forger ``name``; the first call checks every forger at once (in parallel)."""
    if not _RUNS:
        names = sorted(FORGERS)
        _RUNS.update(zip(names, parallel([partial(_run_one, n) for n in names])))
    return _RUNS[name]


@pytest.mark.adversarial
def test_patched_json_dump() -> None:
    """Attack: at import time the target wraps ``json.dump``/``json.dumps`` so that every worker result it
    writes says CONFIRMED / passed. Promise: refuted or unknown, and the command does not exit 0."""
    assert_not_passing(_runs("json_dump"), "FG-1")


@pytest.mark.adversarial
def test_icontract_decorators_replaced() -> None:
    """Attack: at import time the target replaces ``icontract.ensure``/``require``/``invariant``/``snapshot``
    with no-ops, so the harness's contracts vanish. Promise: refuted or unknown, and not exit 0."""
    assert_not_passing(_runs("icontract_noop"), "FG-1")


@pytest.mark.adversarial
def test_builtins_bool_and_isinstance_patched() -> None:
    """Attack: at import time the target makes ``builtins.bool`` always return True (every harness condition
    is wrapped in ``bool()``) and patches ``builtins.isinstance`` to hide the swap. Promise: refuted or
    unknown, and not exit 0."""
    assert_not_passing(_runs("builtins_bool"), "FG-1")


@pytest.mark.adversarial
def test_ignore_attempt_on_bad_path() -> None:
    """Attack: on the wrong input the target raises CrossHair's ``IgnoreAttempt`` (imported inside a
    ``try/except ImportError``; without CrossHair it returns the wrong value), so CrossHair discards that
    path. Promise: refuted or unknown."""
    assert_not_passing(shared_probe_run(), "IG-1", whole_run=False)
