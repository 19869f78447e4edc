"""The ``schedules`` engine: unmodified asyncio code explored over its event-loop interleavings.

The loop itself (:mod:`evalgap.verifier.engines.schedloop`) is tested in-process on trusted toy coroutines
defined here; the engine end to end through ``evalgap check`` on a small project (its code runs only in
the sandboxed workers).
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from evalgap.specs_lang import parse
from evalgap.specs_lang.check import structure_diagnostics
from evalgap.specs_lang.diagnostics import EXPLORE_PLACEMENT, EXPLORE_UNKNOWN
from evalgap.verifier.engines import schedloop

from egtest import run_cli


class _Box:
    def __init__(self) -> None:
        self.value = 0


async def _early(box: _Box) -> None:
    """Reads, suspends once, writes."""
    cur = box.value
    await asyncio.sleep(0)
    box.value = cur + 1


async def _late(box: _Box) -> None:
    """Suspends twice, then reads and writes without suspending: safe under FIFO, not under every order."""
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    box.value += 1


def _race() -> None:
    box = _Box()

    async def main() -> None:
        await asyncio.gather(_early(box), _late(box))

    asyncio.run(main())
    assert box.value == 2, box.value


def _locked() -> None:
    box = _Box()

    async def add(lock: asyncio.Lock) -> None:
        async with lock:
            cur = box.value
            await asyncio.sleep(0)
            box.value = cur + 1

    async def main() -> None:
        lock = asyncio.Lock()
        await asyncio.gather(add(lock), add(lock), add(lock))

    asyncio.run(main())
    assert box.value == 3, box.value


def test_fifo_order_hides_the_race_that_two_delays_show() -> None:
    _race()  # asyncio's own order: passes
    run, exc = schedloop.run_schedule(_race, schedloop.Prefix([]))
    assert exc is None and run.widths and max(run.widths) == 2
    assert schedloop.explore(_race, 500, 0, 64, 0, 3).failure is None  # 0 delays: only the FIFO order
    one = schedloop.explore(_race, 500, 1, 64, 0, 3)
    assert one.failure is None and one.exhaustive and one.dfs > 1  # `_late` must overtake `_early` twice
    found = schedloop.explore(_race, 500, 2, 64, 0, 3)
    assert isinstance(found.failure, AssertionError) and str(found.failure).startswith("1")
    assert sum(found.schedule) == 2
    # replayed twice: the same failure, the same steps
    again = [schedloop.run_schedule(_race, schedloop.Prefix(found.schedule)) for _ in range(2)]
    assert all(isinstance(e, AssertionError) for _, e in again)
    assert again[0][0].steps == again[1][0].steps
    assert any("[2nd of 2 ready]" in s for s in again[0][0].steps)
    assert any("_early" in s and "suspended at test_schedules.py" in s for s in again[0][0].steps)


def test_locked_version_is_exhausted_without_failure() -> None:
    ex = schedloop.explore(_locked, 2000, 3, 64, 0, 3)
    assert ex.failure is None and ex.exhaustive and ex.pruned and ex.dfs > 20


def test_pct_finds_the_race_without_the_depth_first_search() -> None:
    ex = schedloop.explore(_race, 1, 0, 64, 200, 2, seed=1)  # one DFS run (FIFO, passes), then PCT
    assert isinstance(ex.failure, AssertionError) and ex.schedules > ex.dfs == 1 and ex.pruned


def test_virtual_time_and_step_limit() -> None:
    def sleeper() -> None:
        async def main() -> float:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            await asyncio.sleep(3600)
            return loop.time() - t0

        assert asyncio.run(main()) == 3600

    run, exc = schedloop.run_schedule(sleeper, schedloop.Prefix([]))
    assert exc is None  # an hour of virtual time, at once

    def spinner() -> None:
        async def spin() -> None:
            while True:
                await asyncio.sleep(0)

        asyncio.run(spin())

    _, exc = schedloop.run_schedule(spinner, schedloop.Prefix([]), max_steps=200)
    assert isinstance(exc, schedloop.StepLimit)


def test_explore_clause_diagnostics() -> None:
    def codes(body: str) -> list[str]:
        text = 'spec t "t"\n\nrequirement R-1 "r"\n' + textwrap.indent(textwrap.dedent(body), "  ")
        return [d.code for d in structure_diagnostics(parse(text, "t.req"))]

    ok = "scenario (a: int):\n  expect f(a) == a\nexplore schedules delays 1 runs 10\n"
    assert codes(ok) == []
    assert codes(ok.replace("schedules", "schedule")) == [EXPLORE_UNKNOWN]
    assert codes(ok.replace("runs 10", "tries 10")) == [EXPLORE_UNKNOWN]
    assert codes(ok.replace("runs 10", "runs 0")) == [EXPLORE_UNKNOWN]
    assert codes("example f(1) == 1\nexplore schedules\n") == [EXPLORE_PLACEMENT]


_TARGET = '''
import asyncio


class Box:
    def __init__(self):
        self.value = 0


async def early(box):
    cur = box.value
    await asyncio.sleep(0)
    box.value = cur + 1


async def late(box):
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    box.value += 1


def run(k):
    box = Box()

    async def main():
        await asyncio.gather(early(box), *(late(box) for _ in range(k)))

    asyncio.run(main())
    return box.value
'''


def _project(tmp_path: Path, delays: int, pct: int = 100) -> Path:
    (tmp_path / "pipe.py").write_text(_TARGET, encoding="utf-8")
    (tmp_path / "pipe.req").write_text(textwrap.dedent(f'''\
        spec pipe "p"
          target: pipe.py

        requirement P-1 "every increment counts"
          scenario (k: int in 1..2):
            expect run(k) == k + 1
          explore schedules delays {delays} runs 200 pct {pct}
        '''), encoding="utf-8")
    return tmp_path / "pipe.req"


def test_engine_refutes_with_a_replayed_schedule(tmp_path: Path) -> None:
    res = run_cli("check", str(_project(tmp_path, 2, pct=0)), "--format", "json", "--no-cache", "--budget", "2")
    assert res.exit_code == 1, res.stdout + res.stderr
    r = res.json()["requirements"][0]
    v = r["verdicts"][0]
    assert (r["verdict"], v["engine"]) == ("refuted", "schedules")
    assert v["counterexample"].startswith("scenario of P-1 with k=1 under schedule [")
    assert "(asyncio's own FIFO order)" not in v["counterexample"]  # the race needs a delay
    assert "replayed deterministically" in v["reason"] and "task 2 (early)" in v["reason"]


def test_engine_states_its_bounds_when_nothing_fails(tmp_path: Path) -> None:
    res = run_cli("check", str(_project(tmp_path, 1, pct=0)), "--format", "json", "--no-cache", "--budget", "2")
    assert res.exit_code == 0, res.stdout + res.stderr
    r = res.json()["requirements"][0]
    assert r["verdict"] == "no-counterexample"
    assert any(b.startswith("schedules: ") and "at most 1 delays" in b for b in r["bounds"])
    assert any(b.startswith("inputs: 2 drawn by Hypothesis") for b in r["bounds"])
    assert not any(b.startswith("PCT") for b in r["bounds"])
    # with PCT beyond the delay bound, the same race is found (a depth-2 bug)
    res = run_cli("check", str(_project(tmp_path, 1, pct=100)), "--format", "json", "--no-cache", "--budget", "2")
    assert res.exit_code == 1 and res.json()["requirements"][0]["verdict"] == "refuted"
