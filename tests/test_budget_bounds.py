"""Budgets bound time (issue 20): the CPU limit is the budget plus a small margin, the wall-clock backstop
stretches with the load only up to a cap, an endless loop without symbolic branches is stopped by the CPU
limit (CrossHair checks its own deadline only at new branches), and the reason says which limit fired."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.verifier.engines.common import cpu_limit_s, worker_failure
from evalgap.verifier.findings import Budget, Verdict
from evalgap.verifier.sandbox.runner import WALL_LOAD_CAP, WorkerOutcome, wall_limit

LOOP = """
def f(n: int) -> int:
    while True:
        n += 1
"""


def test_cpu_limit_is_the_budget_plus_a_small_margin() -> None:
    assert cpu_limit_s(3.0) == 4.0          # at least one second of margin
    assert cpu_limit_s(10.0) == 12.5        # a quarter of the budget beyond 4 s
    assert cpu_limit_s(60.0) == 75.0
    assert cpu_limit_s(3.0) <= 1.5 * 3.0


def test_wall_limit_stretches_with_load_only_up_to_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    idle = wall_limit(4.0, 5.0)
    assert idle == 1.5 * 4.0 + 5.0
    monkeypatch.setattr(os, "getloadavg", lambda: (500.0, 500.0, 500.0))
    assert wall_limit(4.0, 5.0) == idle * WALL_LOAD_CAP
    assert WALL_LOAD_CAP <= 3.0


def test_reasons_name_the_limit_that_fired() -> None:
    budget = Budget(seconds=3.0)
    cpu = worker_failure(WorkerOutcome(None, "cpu-limit", -24, "", 4.2), budget, 4.2, cpu_limit_s=4.0)
    assert cpu is not None and cpu.reason.startswith("budget exhausted: the CPU limit fired")
    assert "4 CPU s" in cpu.reason and "budget of 3 s" in cpu.reason and "SIGXCPU" in cpu.reason
    wall = worker_failure(WorkerOutcome(None, "timeout", -9, "", 33.0), budget, 33.0, cpu_limit_s=4.0)
    assert wall is not None and wall.reason.startswith("timeout: the wall-clock limit fired")


def test_endless_loop_is_stopped_by_the_cpu_limit_near_the_budget(tmp_path: Path) -> None:
    """``budget 3`` on a loop without symbolic branches: stopped at the 4 CPU s limit (before: budget + 15 s),
    within the wall backstop (bounded by the load cap), and the reason says the CPU limit fired."""
    spec = write_case(tmp_path, LOOP)
    start = time.monotonic()
    [r] = run_check(spec, budget_s=3.0)
    wall = time.monotonic() - start
    v = r.verdicts[0]
    assert v.verdict is Verdict.UNKNOWN
    assert v.reason.startswith(("budget exhausted: the CPU limit fired", "timeout: the wall-clock limit fired")), \
        v.reason
    # under load the 4 CPU s take longer, but never more than the capped wall backstop (plus start-up)
    assert wall < wall_limit(cpu_limit_s(3.0), 5.0) + 10.0, wall
