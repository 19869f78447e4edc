"""A result that depends on randomness or the clock is never ``verified`` (design.md section 4): CrossHair's
"all paths exhausted" covers one run's draws, and another run draws other values."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import evalgap
from evalgap.verifier.analysis.gaming_check import _entropy_reads

SPEC = """\
spec e "entropy"
  target: e.py

function f(x: int) -> int
  requirement E-1 "Returns its argument."
    ensures result == x

function g(x: int) -> int
  requirement G-1 "Returns one more than its argument."
    ensures result == x + 1
"""
QUICK = evalgap.Settings(budget_s=2, jobs=2, engines=("crosshair",), cache=False, analysis=False)


@pytest.mark.parametrize("reads", [
    "import random\n\ndef draw():\n    return random.random()\n",
    "from random import randint\n\ndef draw():\n    return randint(0, 10**6) / 10**6\n",
    "import time\n\ndef draw():\n    return time.time() % 1\n",
    "import datetime as dt\n\ndef draw():\n    return dt.datetime.now().microsecond / 10**6\n",
])
def test_a_proof_that_reaches_a_draw_is_unknown(reads: str, tmp_path: Path) -> None:
    (tmp_path / "e.py").write_text(reads + "\n\ndef f(x: int) -> int:\n    return x if draw() >= 0.0 else x + 1\n"
                                   "\n\ndef g(x: int) -> int:\n    return x + 1\n", encoding="utf-8")
    (tmp_path / "e.req").write_text(SPEC, encoding="utf-8")
    report = evalgap.check(tmp_path / "e.req", settings=QUICK)
    by_id = {r.id: r for r in report.requirements}
    assert by_id["E-1"].verdict is evalgap.Verdict.UNKNOWN
    assert by_id["E-1"].verdicts[-1].reason.startswith("nondeterminism: depends on randomness or the clock")
    assert by_id["G-1"].verdict is evalgap.Verdict.VERIFIED  # g reaches no draw: still a proof
    assert evalgap.exit_code(report) == 3


def test_seeded_generators_and_stubbed_clocks_are_not_draws() -> None:
    src = "import random\nR = random.Random(7)\n\ndef f():\n    random.seed(1)\n    return R.random()\n"
    assert _entropy_reads(ast.parse(src)) == []


def test_the_sla_case_with_its_clock_stubbed_keeps_its_proof() -> None:
    root = Path(__file__).resolve().parents[1] / "case_studies" / "sla_search"
    report = evalgap.check(root, "reference", settings=QUICK)
    [sla2] = [r for r in report.requirements if r.id == "SLA-2"]
    assert sla2.verdict in (evalgap.Verdict.VERIFIED, evalgap.Verdict.NO_COUNTEREXAMPLE), sla2.verdicts[-1].reason
    assert not any(v.engine == "nondeterminism" for v in sla2.verdicts)


RACE = """\
import asyncio


async def _add(box: list[int], k: int) -> None:
    v = box[0]
    await asyncio.sleep(0)
    box[0] = v + k


async def _late_add(box: list[int], k: int) -> None:
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    box[0] += k


def total(a: int, b: int) -> int:
    box = [0]

    async def main() -> None:
        # right in the event loop's default order; another interleaving loses an update
        await asyncio.gather(_add(box, a), _late_add(box, b))

    asyncio.run(main())
    return box[0]


def g(x: int) -> int:
    return x + 1
"""
RACE_SPEC = """\
spec race "concurrent"
  target: race.py

function total(a: int in 0..3, b: int in 0..3) -> int
  requirement R-1 "Both additions count."
    ensures result == a + b

function g(x: int) -> int
  requirement G-1 "Returns one more than its argument."
    ensures result == x + 1
"""


def test_a_proof_over_concurrent_tasks_is_not_a_proof(tmp_path: Path) -> None:
    """The schedule is an input CrossHair never varies: whatever it says about one interleaving of
    `asyncio.gather`, a `verified` is never reported for code that starts concurrent tasks."""
    (tmp_path / "race.py").write_text(RACE, encoding="utf-8")
    (tmp_path / "race.req").write_text(RACE_SPEC, encoding="utf-8")
    report = evalgap.check(tmp_path / "race.req", settings=QUICK)
    by_id = {r.id: r for r in report.requirements}
    assert by_id["R-1"].verdict is evalgap.Verdict.UNKNOWN, by_id["R-1"].verdicts
    assert [v.verdict for v in by_id["R-1"].verdicts][0] is evalgap.Verdict.VERIFIED  # CrossHair's one-schedule "proof"
    assert "runs tasks or threads concurrently (asyncio.gather() at race.py:" in by_id["R-1"].verdicts[-1].reason
    assert by_id["G-1"].verdict is evalgap.Verdict.VERIFIED


def test_concurrency_calls_are_found_through_aliases() -> None:
    from evalgap.verifier.analysis.gaming_check import _CONCURRENCY

    src = ("import asyncio as aio\nfrom threading import Thread\nimport concurrent.futures as cf\n"
           "def f():\n    aio.gather()\n    Thread(target=f).start()\n    cf.ThreadPoolExecutor()\n"
           "    aio.sleep(0)\n")
    found = {w.rsplit(".", 1)[-1] for _, w in _entropy_reads(ast.parse(src), _CONCURRENCY, frozenset())}
    assert found == {"gather()", "Thread()", "ThreadPoolExecutor()"}
