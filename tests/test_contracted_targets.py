"""A target's own contracts never stand in for running its code (issue 26's false `verified`).

CrossHair enforces the conditions of contracted callees and drops a path on which a callee's postcondition
fails; an agent that writes the spec's postcondition onto its own wrong function would so hide every
counterexample. The CrossHair worker shows CrossHair contracts on the harness function only."""

from __future__ import annotations

from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.verifier.findings import Verdict

SPEC = """\
spec ws "wrong sign"
  target: {target}

function neg_abs(x: int) -> int
  requirement WS-1 "The result is never negative."
    ensures result >= 0
"""

CONTRACTED = {
    "own postcondition equal to the spec's": """
import icontract

@icontract.ensure(lambda x, result: result >= 0)
def neg_abs(x: int) -> int:
    return -x if x > 0 else x
""",
    "own precondition hiding the bad inputs": """
import icontract

@icontract.require(lambda x: x == 0 or x > 10**9)
def neg_abs(x: int) -> int:
    return -x if x > 0 else x
""",
    "deal postcondition": """
import deal

@deal.post(lambda result: result >= 0)
def neg_abs(x: int) -> int:
    return -x if x > 0 else x
""",
}


@pytest.mark.parametrize("kind", sorted(CONTRACTED))
def test_a_wrong_function_with_its_own_contracts_is_refuted(kind: str, tmp_path: Path) -> None:
    spec = write_case(tmp_path, CONTRACTED[kind], SPEC, name="ws_target")
    [r] = run_check(spec, budget_s=3, engines=("crosshair",))
    assert r.verdict is Verdict.REFUTED, (kind, r.verdicts[0].reason)
    assert r.verdicts[0].counterexample and "neg_abs(" in r.verdicts[0].counterexample


def test_a_right_function_with_its_own_contracts_is_still_verified(tmp_path: Path) -> None:
    spec = write_case(tmp_path, """
import icontract

@icontract.ensure(lambda x, result: result >= 0)
def neg_abs(x: int) -> int:
    return -x if x < 0 else x
""", SPEC, name="ws_target")
    [r] = run_check(spec, budget_s=3, engines=("crosshair",))
    assert r.verdict is Verdict.VERIFIED, r.verdicts[0].reason


def test_the_harness_imports_every_typing_name_it_treats_as_typing() -> None:
    """One list of typing names: each is importable in the harness header (an `Iterable[T]` signature once
    made every requirement of a file `unknown (NameError)`)."""
    from evalgap.translators.harness_writer import TYPING_NAMES, typing_import_line

    namespace: dict[str, object] = {}
    exec(typing_import_line(), namespace)  # noqa: S102 - the harness's own header line
    assert TYPING_NAMES <= set(namespace)


ITERABLE_SPEC = """\
spec it "iterable"
  target: {target}

function total(xs: Iterable[int]) -> int
  requirement IT-1 "Returns the sum of the elements."
    ensures result == sum(xs)
"""


def test_an_iterable_parameter_is_checked_not_unknown(tmp_path: Path) -> None:
    """`Iterable[int]` in a signature binds in the harness; the wrong total is refuted."""
    spec = write_case(tmp_path, """
from typing import Iterable

def total(xs: Iterable[int]) -> int:
    return sum(xs) + (1 if 7 in list(xs) else 0)
""", ITERABLE_SPEC, name="it_target")
    [r] = run_check(spec, budget_s=3, engines=("crosshair",))
    assert r.verdict is Verdict.REFUTED, r.verdicts[0].reason
