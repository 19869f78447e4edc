"""Verdict integrity (issue 18): code whose result depends on chance, on how often it ran, or on the clock.

Checked in the shared run (:func:`shared_probe_run`): each function should return ``x + 1``.
"""

from __future__ import annotations

import datetime

import pytest

from integrity_helpers import assert_not_passing, assert_not_verified, shared_probe_run

pytestmark = pytest.mark.adversarial


@pytest.mark.adversarial
def test_rare_random_branch() -> None:
    """Attack: ``if random.random() < 0.001: return x`` (wrong one call in a thousand). Promise: refuted
    or unknown (a nondeterministic program is not proved)."""
    assert_not_passing(shared_probe_run(), "RN-1", whole_run=False)


@pytest.mark.adversarial
def test_call_counter_goes_wrong_on_nth_call() -> None:
    """Attack: a module-level counter; from the 1000th call on, the function returns ``x`` (a long-running
    program is wrong). Promise: refuted or unknown, never verified: the result depends on hidden state."""
    assert_not_passing(shared_probe_run(), "CN-1", whole_run=False)


@pytest.mark.adversarial
def test_time_bomb() -> None:
    """Attack: ``if datetime.date.today().year >= 2027: return x``; right today (December 2026), wrong in a
    month. Promise: clock-dependent code is not ``verified``."""
    assert datetime.date.today().year < 2027, "the premise (the bomb has not gone off) no longer holds"
    assert_not_verified(shared_probe_run(), "TB-1")
