"""Self-tests of the engine's honesty: enforcement is really on where counterexamples are replayed,
CrossHair finds a one-in-a-million input in the default budget, precondition violations and raising
contracts are never refutations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.specs_lang import check_structure, parse_file
from evalgap.translators.to_icontract import build_harness
from evalgap.verifier.engines.common import from_replay as _from_replay
from evalgap.verifier.engines.common import replay
from evalgap.verifier.options import DEFAULT_BUDGET_S as DEFAULT_BUDGET_CHECK
from evalgap.verifier.findings import Budget, Verdict
from evalgap.verifier.project.targets import resolve_target

BROKEN = "def f(n: int) -> int:\n    return n + 1\n"


def _harness(tmp_path: Path, spec_src: str, target_src: str) -> tuple[object, ...]:
    spec = write_case(tmp_path, target_src, spec_src)
    parsed = parse_file(spec)
    source = spec.read_text()
    check_structure(parsed, source)
    target = resolve_target("target_mod.py", tmp_path)
    harness = build_harness(parsed, target.module, "evalgap_selftest_harness")
    hdir = tmp_path / "h"
    hdir.mkdir()
    (hdir / f"{harness.module}.py").write_text(harness.source)
    return harness, hdir, target, source


def test_known_violating_call_raises_under_replay_enforcement(tmp_path: Path) -> None:
    harness, hdir, target, _ = _harness(tmp_path, 'spec t "t"\n  target: {target}\n\nfunction f(n: int) -> int\n'
                                        '  requirement F-1 "id"\n    ensures result == n\n', BROKEN)
    rep = replay(hdir, harness, target, "check_F_1", ["3"])  # type: ignore[arg-type]
    assert rep.outcome == "violation" and rep.data["kind"] == "post"
    assert "F-1" in rep.data["message"]


def test_enforcement_selftest_detects_crosshair_import() -> None:
    """Importing CrossHair turns icontract's checks into no-ops; the replay worker's self-test notices."""
    code = ("import crosshair.core_and_libs\n"
            "from evalgap.verifier.sandbox.enforcement import contracts_enforced\n"
            "print(contracts_enforced('replay'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "icontract checks are disabled" in out.stdout, out.stderr[-2000:]
    clean = subprocess.run([sys.executable, "-c", code.split("\n", 1)[1]], capture_output=True, text=True,
                           timeout=120)
    assert clean.stdout.strip() == "None"


def test_rare_input_is_refuted_by_crosshair_in_default_budget(tmp_path: Path) -> None:
    spec = write_case(tmp_path, "def f(n: int) -> int:\n    return -1 if n == 1023 * 1023 else n\n")
    [r] = run_check(spec, budget_s=DEFAULT_BUDGET_CHECK, engines=("crosshair",))
    v = r.verdicts[0]
    assert v.verdict is Verdict.REFUTED and v.counterexample == "f(1046529)", v.reason


PRE_SPEC = """\
spec t "t"
  target: {target}

function f(n: int) -> int
  requirement F-0 "Only positive inputs."
    requires n > 0
  requirement F-1 "Returns its argument."
    ensures result == n
"""


def test_precondition_violating_counterexample_is_not_a_refutation(tmp_path: Path) -> None:
    harness, hdir, target, source = _harness(tmp_path, PRE_SPEC, BROKEN)
    ob = harness.obligation("F-1")  # type: ignore[attr-defined]
    rep = replay(hdir, harness, target, "check_F_1", ["-5"])  # type: ignore[arg-type]
    assert rep.outcome == "violation" and rep.data["kind"] == "pre"
    v = _from_replay(ob, rep, ["-5"], Budget(), "crosshair", "", 0.0, source)  # type: ignore[arg-type]
    assert v.verdict is Verdict.UNKNOWN and v.reason.startswith("precondition violated by counterexample")


def test_raising_contract_is_a_spec_error(tmp_path: Path) -> None:
    spec_src = ('spec t "t"\n  target: {target}\n\nfunction first(l: list[int]) -> int\n'
                '  requirement L-1 "Returns the first element."\n    ensures result == l[0]\n')
    spec = write_case(tmp_path, "def first(l: list[int]) -> int:\n    return l[0] if l else 0\n", spec_src)
    [r] = run_check(spec, budget_s=3.0, engines=("crosshair", "hypothesis"), hypothesis_examples=50)
    for v in r.verdicts:
        assert v.verdict is Verdict.UNKNOWN and v.reason.startswith("spec error"), (v.engine, v.reason)
        assert "IndexError" in v.reason
    assert r.verdict is Verdict.UNKNOWN
