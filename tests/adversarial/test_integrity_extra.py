"""Verdict integrity (issue 18): attacks the first suite lacked, checked in one shared run.

* nondeterminism Hypothesis sees while CrossHair proves (the issue: "Hypothesis reports nondeterminism, yet
  the overall verdict stays verified");
* foreign-function calls through ``ctypes`` (the way around the audit hooks);
* a computed module name looked up in ``sys.modules`` (out of reach of a literal-matching rule);
* icontract's checks switched off at call time (after the harness applied them), not at import time;
* a clock read through ``time.time()`` compared with an epoch constant.

Each function should return ``x + 1``; the promise is the same for all: ``refuted`` or ``unknown``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from integrity_helpers import (MAGIC_SOURCE, Run, assert_not_passing, check, fresh_dir,  # noqa: E402
                               plus_one_spec, sandbox, write_project)

pytestmark = pytest.mark.adversarial

_TARGET = '''
import sys
import time

''' + MAGIC_SOURCE + '''
_TOOL = "".join(reversed("riahssorc"))


def flaky(x: int) -> int:
    if time.perf_counter_ns() % 3 == 0:
        return x
    return x + 1


def foreign(x: int) -> int:
    if x == _MAGIC:
        import ctypes

        return int(ctypes.CDLL(None).getpid()) * 0 + x
    return x + 1


def hidden_probe(x: int) -> int:
    if x == _MAGIC and _TOOL not in sys.modules:
        return x
    return x + 1


def contracts_off(x: int) -> int:
    import icontract._checkers as checkers

    checkers._assert_postconditions = lambda *a, **k: None
    checkers._assert_postconditions_async = lambda *a, **k: None
    return x


def epoch_bomb(x: int) -> int:
    if time.time() > 1798761600:  # 2027-01-01
        return x
    return x + 1
'''

_FUNCTIONS = [("flaky", "FL-1"), ("foreign", "FF-1"), ("hidden_probe", "HP-1"), ("contracts_off", "CO-1"),
              ("epoch_bomb", "EB-1")]
_RUN: list[Run] = []


def _run() -> Run:
    if not _RUN:
        folder = write_project(fresh_dir("extra"), {"extra.py": _TARGET,
                                                    "extra.req": plus_one_spec("extra", "extra.py", _FUNCTIONS)})
        _RUN.append(check(folder / "extra.req", sandbox(folder)))
    return _RUN[0]


@pytest.mark.adversarial
def test_nondeterminism_seen_by_hypothesis_outweighs_a_proof() -> None:
    """Attack: wrong on about one call in three (by the clock's nanoseconds). Promise: refuted or unknown
    (nondeterminism), never verified."""
    assert_not_passing(_run(), "FL-1", whole_run=False)


@pytest.mark.adversarial
def test_ctypes_foreign_call_is_blocked() -> None:
    """Attack: on the narrow input the target loads libc through ctypes. Promise: refuted or unknown
    (the guard blocks ``ctypes.dlopen``)."""
    assert_not_passing(_run(), "FF-1", whole_run=False)


@pytest.mark.adversarial
def test_computed_module_name_probe() -> None:
    """Attack: ``"".join(reversed("riahssorc")) not in sys.modules``. Promise: refuted or unknown."""
    assert_not_passing(_run(), "HP-1", reason="gaming suspected", whole_run=False)


@pytest.mark.adversarial
def test_contract_checks_switched_off_at_call_time() -> None:
    """Attack: the first call replaces icontract's postcondition checker with a no-op, then returns the
    wrong value. Promise: refuted or unknown (tampered)."""
    assert_not_passing(_run(), "CO-1", whole_run=False)


@pytest.mark.adversarial
def test_epoch_time_bomb() -> None:
    """Attack: ``time.time() > 1798761600`` (2027-01-01). Promise: refuted or unknown; and the whole run,
    which holds only wrong programs, does not exit 0."""
    run = _run()
    assert_not_passing(run, "EB-1", reason="EG408")
