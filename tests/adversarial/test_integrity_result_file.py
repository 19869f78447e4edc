"""A target that writes its own result into the worker's result file (through the descriptor the scaffold
opened before the target ran) and then ends the worker before the scaffold writes the real one, or points
the descriptor elsewhere, or leaves a thread that writes after it: the forged "passed" must never become a
verdict (the scaffold writes the whole result last and exits with 0; the parent keeps a result only from a
worker that did; see :meth:`evalgap.verifier.sandbox.channel.Channel.send`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.verifier.findings import Verdict

from enginehelp import run_check, write_case

pytestmark = pytest.mark.adversarial

FORGE = (Path(__file__).parent.parent / "fixtures" / "forge" / "forge.py").read_text(encoding="utf-8")
ENDINGS = ("kill", "posix-exit", "evalgap-exit", "redirect", "untrusted-zero", "no-write", "longer", "thread",
           "signal", "profile", "stderr", "exc-str")
#: the example count the forged Hypothesis result claims (tests/fixtures/forge/forge.py)
FORGED_EXAMPLES = 4242


@pytest.mark.parametrize("ending", ENDINGS)
def test_a_forged_crosshair_result_is_never_a_proof(tmp_path: Path, ending: str) -> None:
    [res] = run_check(write_case(tmp_path, f"ENDING = {ending!r}\n" + FORGE), budget_s=2.0)
    [v] = res.verdicts
    # stopped: the real analysis runs and finds the wrong input, or the run is not trusted
    assert v.verdict in (Verdict.REFUTED, Verdict.UNKNOWN), (ending, v)
    if ending in ("redirect", "untrusted-zero", "longer", "thread"):  # the run went on: its file is not trusted
        assert v.reason.startswith("tampered"), (ending, v.reason)


@pytest.mark.parametrize("ending", ENDINGS)
def test_a_forged_hypothesis_result_is_never_a_pass(tmp_path: Path, ending: str) -> None:
    [res] = run_check(write_case(tmp_path, f"ENDING = {ending!r}\n" + FORGE), budget_s=2.0,
                      engines=("hypothesis",), hypothesis_examples=30)
    [v] = res.verdicts
    assert v.budget.examples != FORGED_EXAMPLES, (ending, v)
    assert v.verdict is Verdict.UNKNOWN or (v.verdict is Verdict.NO_COUNTEREXAMPLE and v.budget.examples == 30), (
        ending, v)
    if ending in ("redirect", "untrusted-zero", "longer", "thread"):
        assert v.reason.startswith("tampered"), (ending, v.reason)
