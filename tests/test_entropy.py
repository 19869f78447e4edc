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
