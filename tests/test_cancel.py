"""Stopping the other engines at the first replayed counterexample (issue 20): a :class:`Cancel` stops a
running worker on both paths (fork server and spawned), a cancel that arrives after its job never touches the
next job of the same server, and a requirement refuted by one engine does not wait for the other's budget."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import evalgap
from evalgap.verifier.options import Settings
from evalgap.verifier.sandbox import workers
from evalgap.verifier.sandbox.runner import Cancel, Limits, WorkerOutcome, cancellable, run_worker, was_cancelled

from enginehelp import write_case

SERVED = "test-cancel-served"


@pytest.fixture(scope="module", autouse=True)
def _served_kind() -> Iterator[None]:
    """The signature probe (it imports the target: the target's import is the job) from a small fork server."""
    workers.register(workers.WorkerKind(SERVED, "evalgap.verifier.project.signature_worker", ("json",)))
    yield
    workers.WORKERS.pop(SERVED, None)


@pytest.fixture(params=[SERVED, "signature"], ids=["fork-server", "spawned"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _probe(tmp_path: Path, body: str, kind: str, name: str = "slowimport") -> WorkerOutcome:
    pkg = tmp_path / "target"
    pkg.mkdir(exist_ok=True)
    (pkg / f"{name}.py").write_text(body + "\ndef f(n: int) -> int:\n    return n\n", encoding="utf-8")
    sys.modules.pop(name, None)
    return run_worker(kind, {"paths": [str(pkg)], "module": name}, Limits(cpu_s=20, wall_s=30))


def test_a_running_job_is_stopped_within_a_second(tmp_path: Path, kind: str) -> None:
    cancel = Cancel()
    timer = threading.Timer(0.5, cancel.stop, args=("test",))
    timer.start()
    start = time.monotonic()
    with cancellable(cancel) as hit:
        out = _probe(tmp_path, "while True:\n    pass\n", kind)
        assert was_cancelled()
    took = time.monotonic() - start
    assert out.status == "cancelled" and out.result is None
    assert hit == [True]
    assert took < 5.0, took  # the loop would run to its 20 CPU s limit
    assert not was_cancelled()  # outside the block


def test_a_set_cancel_starts_nothing(tmp_path: Path) -> None:
    cancel = Cancel()
    cancel.stop("crosshair")
    with cancellable(cancel) as hit:
        out = _probe(tmp_path, "raise SystemExit('must not run')\n", SERVED)
    assert (out.status, out.wall_s, hit) == ("cancelled", 0.0, [True])
    assert "crosshair" in out.stderr


def test_a_late_cancel_does_not_stop_the_next_job_of_the_same_server(tmp_path: Path) -> None:
    cancel = Cancel()
    with cancellable(cancel) as hit:
        first = _probe(tmp_path, "X = 1\n", SERVED, "quick")
    cancel.stop("test")  # after the job: a watcher that is still polling must not send it on
    time.sleep(0.1)
    second = _probe(tmp_path, "import time\ntime.sleep(0.3)\n", SERVED, "slower")
    assert (first.status, hit) == ("ok", [False])
    assert second.status == "ok", second.stderr
    assert second.result is not None and "f" in str(second.result)


def test_outside_a_block_nothing_is_cancelled(tmp_path: Path) -> None:
    out = _probe(tmp_path, "X = 1\n", SERVED, "plain")
    assert out.status == "ok" and not was_cancelled()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_refutation_stops_the_other_engine(tmp_path: Path, jobs: int) -> None:
    # CrossHair refutes at once; each Hypothesis example sleeps, so its 200 examples would take 10 s
    spec = write_case(tmp_path, "import time\n\n\ndef f(n: int) -> int:\n    time.sleep(0.05)\n"
                                "    return n if n != 3 else 0\n")
    start = time.monotonic()
    report: Any = evalgap.check(spec, settings=Settings(jobs=jobs, cache=False, analysis=False, budget_s=10.0,
                                                        engines=("crosshair", "hypothesis")))
    took = time.monotonic() - start
    req = report.requirements[0]
    by = {v.engine: v for v in req.verdicts}
    assert req.verdict.value == "refuted"
    assert by["crosshair"].verdict.value == "refuted"
    assert by["hypothesis"].verdict.value == "unknown"
    how = "stopped" if jobs == 2 else "not run"
    assert by["hypothesis"].reason == (f"{how}: the crosshair engine refuted the requirement first (its "
                                       "counterexample was replayed)")
    assert took < 9.0, took


def test_a_cached_refutation_answers_the_rerun_without_the_stopped_engine(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The stopped engine's verdict is never cached; a re-run answers from the cached refutation and does not
    run the stopped engine again (before: it ran until the cached refutation stopped it, every re-run)."""
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path / "cache"))
    # no clock read (a verdict that read the clock is not cached): Hypothesis is kept busy by plain work
    spec = write_case(tmp_path / "case", "def f(n: int) -> int:\n    if n == 3 ** 19 + 7:\n        return 0\n"
                                         "    return n + sum(range(2000)) * 0\n")
    # Hypothesis would run its whole budget (far more examples than it can try): CrossHair refutes first
    settings = Settings(jobs=2, cache=True, analysis=False, budget_s=10.0, engines=("crosshair", "hypothesis"),
                        hypothesis_examples=1_000_000)
    first: Any = evalgap.check(spec, settings=settings)
    assert {v.engine: v.reason.split(":")[0] for v in first.requirements[0].verdicts}["hypothesis"] == "stopped"
    again: Any = evalgap.check(spec, settings=settings)
    req = again.requirements[0]
    by = {v.engine: v for v in req.verdicts}
    assert req.verdict.value == "refuted" and by["crosshair"].cached
    assert by["hypothesis"].reason.startswith("not run: the crosshair engine refuted the requirement first")
    assert by["hypothesis"].elapsed_s == 0.0
