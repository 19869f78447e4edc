"""A requirement with both `raises EXC when EXPR` and `ensures` (exceptional postconditions, as JML's
`signals`/`ensures`): where a `when` holds (pre-state) the call must raise that exception (or a subclass) and
the `ensures` are not checked; elsewhere it must return normally with every `ensures` true.

Checked concretely (replay worker), with CrossHair and Hypothesis through `evalgap check`, through the
emitted reproducer tests, in the Z3 analysis, and for methods."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from egtest import run_cli

from evalgap.specs_lang import parse
from evalgap.translators import build_harness
from evalgap.translators.to_icontract import Harness
from evalgap.verifier.analysis.run import analyze_spec
from evalgap.verifier.engines.run import ReplayResult, replay
from evalgap.verifier.project.targets import resolve_target

SPEC = '''spec withdraw "Withdraw with exceptional behaviour"
  target: bank.py

function withdraw(balance: int in 0..1000, amount: int in 0..1000) -> int
  requirement W-1 "Withdrawing more than the balance raises ValueError; otherwise the new balance is balance - amount."
    raises ValueError when amount > balance
    ensures result == balance - amount
'''

_HEAD = "def withdraw(balance: int, amount: int) -> int:\n"
IMPLS = {
    # correct
    "ok": _HEAD + "    if amount > balance:\n        raise ValueError('insufficient funds')\n"
                  "    return balance - amount\n",
    # returns a negative balance instead of raising
    "negative": _HEAD + "    return balance - amount\n",
    # raises ValueError on valid input (amount == balance)
    "rejects": _HEAD + "    if amount >= balance:\n        raise ValueError('insufficient funds')\n"
                       "    return balance - amount\n",
    # wrong value on valid input (large withdrawals)
    "wrong": _HEAD + "    if amount > balance:\n        raise ValueError('insufficient funds')\n"
                     "    if amount > 500:\n        return balance - amount + 1\n    return balance - amount\n",
    # raises a different exception
    "other": _HEAD + "    if amount > balance:\n        raise RuntimeError('insufficient funds')\n"
                     "    return balance - amount\n",
}
RAISES_TEXT = "`raises ValueError when amount > balance` does not hold"
ENSURES_TEXT = "`result == balance - amount` does not hold"


def _case(tmp_path: Path, impl: str, spec: str = SPEC) -> Path:
    (tmp_path / "bank.py").write_text(IMPLS.get(impl, impl))
    (tmp_path / "withdraw.req").write_text(spec)
    return tmp_path / "withdraw.req"


def _harness(tmp_path: Path, impl: str, spec: str = SPEC) -> tuple[Path, Harness, object]:
    _case(tmp_path, impl, spec)
    target = resolve_target("bank.py", tmp_path)
    harness = build_harness(parse(spec), target.module, "h_raises")
    hdir = tmp_path / "h"
    hdir.mkdir(exist_ok=True)
    (hdir / "h_raises.py").write_text(harness.source)
    return hdir, harness, target


def _replay(tmp_path: Path, impl: str, args: list[str], req: str = "W-1", spec: str = SPEC) -> ReplayResult:
    hdir, harness, target = _harness(tmp_path, impl, spec)
    fn = harness.obligation(req).function
    assert fn is not None
    return replay(hdir, harness, target, fn, args)  # type: ignore[arg-type]


def test_compiles_to_one_checked_obligation_not_unsupported(tmp_path: Path) -> None:
    _, harness, _ = _harness(tmp_path, "ok")
    ob = harness.obligation("W-1")
    assert ob.kind == "scenario" and ob.target_function == "withdraw"
    assert ob.checks == ("raises ValueError when (amount > balance)", "(result == (balance - amount))")
    assert "except (Exception, ValueError) as _eg_exc:" in harness.source


@pytest.mark.parametrize(("impl", "args", "outcome", "index"), [
    ("ok", ["0", "1"], "passed", None),        # raises as required
    ("ok", ["5", "3"], "passed", None),        # returns the new balance
    ("ok", ["5", "5"], "passed", None),        # boundary: amount == balance is valid
    ("negative", ["0", "1"], "violation", 1),  # returned where it must raise: the raises clause
    ("negative", ["5", "3"], "passed", None),
    ("wrong", ["600", "501"], "violation", 2),  # wrong value: the ensures clause
    ("wrong", ["0", "1"], "passed", None),
    ("other", ["0", "1"], "violation", 1),     # RuntimeError is not a ValueError
])
def test_replay_meaning(tmp_path: Path, impl: str, args: list[str], outcome: str, index: int | None) -> None:
    rep = _replay(tmp_path, impl, args)
    assert rep.outcome == outcome, rep.data
    if outcome == "violation":
        assert rep.data["kind"] == "post" and rep.data["returned"] == index


def test_replay_exception_on_valid_input_escapes(tmp_path: Path) -> None:
    rep = _replay(tmp_path, "rejects", ["5", "5"])
    assert rep.outcome == "exception" and rep.data["type"] == "ValueError" and not rep.data["in_harness"]


MULTI = '''function withdraw(balance: int in 0..1000, amount: int in 0..1000) -> int
  requirement W-1 "Overdraft raises ValueError, a large amount raises OverflowError."
    raises ValueError when amount > balance
    raises OverflowError when amount > 500
    ensures result == balance - amount
'''


@pytest.mark.parametrize(("body", "args", "outcome", "index"), [
    ("raise ValueError('x')", ["100", "700"], "passed", None),      # both hold: either listed exception
    ("raise OverflowError('x')", ["100", "700"], "passed", None),
    ("raise KeyError('x')", ["100", "700"], "violation", 1),        # neither: the first holding clause
    ("raise ValueError('x')", ["900", "700"], "violation", 2),      # only the second holds
    ("raise OverflowError('x')", ["100", "200"], "violation", 1),   # only the first holds
    ("raise UnicodeError('x')", ["100", "200"], "passed", None),    # a subclass of ValueError
    ("return balance - amount", ["100", "700"], "violation", 1),
])
def test_several_raises_any_holding_exception_is_accepted(tmp_path: Path, body: str, args: list[str],
                                                          outcome: str, index: int | None) -> None:
    impl = (_HEAD + "    if amount > balance or amount > 500:\n"
            f"        {body}\n    return balance - amount\n")
    rep = _replay(tmp_path, impl, args, spec=MULTI)
    assert rep.outcome == outcome, rep.data
    if outcome == "violation":
        assert rep.data["returned"] == index


OTHER_REQ = SPEC + '''  requirement W-2 "Amount 7 is reserved."
    raises KeyError when amount == 7
'''


def test_other_requirements_exceptional_inputs_are_not_normal_inputs(tmp_path: Path) -> None:
    impl = IMPLS["ok"] + "\n\n_orig = withdraw\n\n\ndef withdraw(balance: int, amount: int) -> int:\n" \
        "    if amount == 7 and amount <= balance:\n        raise KeyError(7)\n    return _orig(balance, amount)\n"
    hdir, harness, target = _harness(tmp_path, impl, OTHER_REQ)
    fn = harness.obligation("W-1").function
    assert "W-2" in harness.obligation("W-1").preconditions  # reported as an assumption of the verdict
    assert replay(hdir, harness, target, fn, ["10", "7"]).outcome == "passed"  # type: ignore[arg-type]
    assert replay(hdir, harness, target, fn, ["3", "7"]).outcome == "passed"  # type: ignore[arg-type]


def _check(spec: Path, *extra: str) -> dict[str, object]:
    res = run_cli("check", str(spec), "--budget", "2", "--no-analysis", "-j", "1", "-f", "json", *extra)
    assert res.exit_code in (0, 1), res.stdout + res.stderr
    req: dict[str, object] = json.loads(res.stdout)["requirements"][0]
    return req


def _verdict(req: dict[str, object], engine: str) -> dict[str, object]:
    verdicts = req["verdicts"]
    assert isinstance(verdicts, list)
    return next(v for v in verdicts if v["engine"] == engine)


EXPECTED = {"negative": RAISES_TEXT, "rejects": "raised ValueError", "wrong": ENSURES_TEXT, "other": RAISES_TEXT}


@pytest.mark.parametrize("engine", ["crosshair", "hypothesis"])
@pytest.mark.parametrize("impl", ["ok", "negative", "rejects", "wrong", "other"])
def test_check_engines(tmp_path: Path, impl: str, engine: str) -> None:
    req = _check(_case(tmp_path, impl), "--engines", engine)
    v = _verdict(req, engine)
    if impl == "ok":
        assert v["verdict"] in ("verified", "no-counterexample"), v
        return
    assert v["verdict"] == "refuted", v
    assert EXPECTED[impl] in str(v["reason"]) and "replayed concretely" in str(v["reason"]), v
    assert v["arguments"], v  # the counterexample, replayed


def test_correct_code_keeps_its_verdict_with_both_engines(tmp_path: Path) -> None:
    req = _check(_case(tmp_path, "ok"))
    assert req["verdict"] in ("verified", "no-counterexample"), req
    assert {v["engine"] for v in req["verdicts"]} == {"crosshair", "hypothesis"}  # type: ignore[attr-defined]


def _pytest(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
                          capture_output=True, text=True, timeout=120,
                          cwd=folder if folder.is_dir() else folder.parent)


@pytest.mark.slow
@pytest.mark.parametrize("impl", ["negative", "rejects", "wrong", "other"])
def test_emitted_tests_fail_on_broken_and_pass_on_fixed(tmp_path: Path, impl: str) -> None:
    out = tmp_path / "emitted"
    spec = _case(tmp_path, impl)
    res = run_cli("check", str(spec), "--budget", "2", "--no-analysis", "-j", "1", "--engines", "crosshair",
                  "--emit-tests", str(out))
    assert res.exit_code == 1, res.stdout + res.stderr
    files = sorted(out.glob("test_*.py"))
    assert len(files) == 1
    broken = _pytest(out)
    assert broken.returncode == 1 and "1 failed" in broken.stdout, broken.stdout
    (tmp_path / "bank.py").write_text(IMPLS["ok"])
    fixed = _pytest(out)
    assert fixed.returncode == 0 and "1 passed" in fixed.stdout, fixed.stdout


def test_export_pytest_runs_the_same_meaning(tmp_path: Path) -> None:
    spec = _case(tmp_path, "ok")
    out = tmp_path / "test_exported.py"
    res = run_cli("export", "--to", "pytest", str(spec), "-o", str(out))
    assert res.exit_code == 0, res.stdout + res.stderr
    assert _pytest(out).returncode == 0
    (tmp_path / "bank.py").write_text(IMPLS["negative"])
    failed = _pytest(out)
    assert failed.returncode == 1 and "ViolationError" in failed.stdout


ACCOUNT = '''spec account "Account"
  target: acct.py

class Account
  method withdraw(amount: int in 0..100) -> int
    requirement AC-1 "Overdraft raises ValueError; otherwise the balance drops by the amount."
      raises ValueError when amount > self.balance
      ensures self.balance == old(self.balance) - amount and result == self.balance
'''
ACCT = '''class Account:
    def __init__(self) -> None:
        self.balance = 50

    def withdraw(self, amount: int) -> int:
        if amount > self.balance{cmp}:
            raise ValueError("overdraft")
        self.balance -= amount
        return self.balance
'''


@pytest.mark.parametrize(("cmp", "refuted"), [("", False), (" + 10", True), (" - 1", True)])
def test_method_requirement(tmp_path: Path, cmp: str, refuted: bool) -> None:
    (tmp_path / "acct.py").write_text(ACCT.replace("{cmp}", cmp))
    (tmp_path / "account.req").write_text(ACCOUNT)
    req = _check(tmp_path / "account.req", "--engines", "crosshair")
    v = _verdict(req, "crosshair")
    if not refuted:
        assert v["verdict"] in ("verified", "no-counterexample"), v
    else:
        assert v["verdict"] == "refuted", v
        assert "replayed concretely" in str(v["reason"]), v


@pytest.mark.slow
def test_method_emitted_test_fails_on_broken_and_passes_on_fixed(tmp_path: Path) -> None:
    (tmp_path / "acct.py").write_text(ACCT.replace("{cmp}", " + 10"))
    (tmp_path / "account.req").write_text(ACCOUNT)
    out = tmp_path / "emitted"
    res = run_cli("check", str(tmp_path / "account.req"), "--budget", "2", "--no-analysis", "-j", "1",
                  "--engines", "crosshair", "--emit-tests", str(out))
    assert res.exit_code == 1, res.stdout + res.stderr
    text = next(out.glob("test_*.py")).read_text()
    assert "import copy" in text and "copy.deepcopy(self.balance)" in text
    broken = _pytest(out)
    assert broken.returncode == 1 and "AssertionError: AC-1" in broken.stdout, broken.stdout
    (tmp_path / "acct.py").write_text(ACCT.replace("{cmp}", ""))
    assert _pytest(out).returncode == 0


def test_z3_analysis_reads_the_ensures_where_no_when_holds() -> None:
    base = '''function withdraw(balance: int in 0..1000, amount: int in 1..1000) -> int
  requirement W-1 "..."
    raises ValueError when amount > balance
    ensures result == balance - amount
'''
    ok = analyze_spec(parse(base + '  requirement W-2 "Never negative."\n    ensures result >= 0\n'), 3.0)
    assert not ok.of_kind("conflict")  # the negative results lie where W-1 raises
    bad = analyze_spec(parse(base + '  requirement W-2 "Keeps the balance."\n    ensures result == balance\n'),
                       3.0)
    # jointly satisfiable (where W-1 raises) but no result exists for a valid withdrawal
    assert [set(f.requirements) for f in bad.of_kind("unrealizable")] == [{"W-1", "W-2"}]
    assert not ok.of_kind("unrealizable")
    vac = analyze_spec(parse(base.replace("amount > balance", "amount > 2000")), 3.0)
    assert [f.requirements for f in vac.of_kind("vacuous")] == [("W-1",)]


LET_SPEC = SPEC.replace("    raises ValueError when amount > balance\n",
                        "    let over = amount > balance\n    raises ValueError when over\n") + \
    '  requirement W-2 "Never negative."\n    ensures result >= 0\n'


def test_let_in_the_when_is_read_by_other_requirements(tmp_path: Path) -> None:
    from evalgap.translators.to_z3 import build_function_models

    reqs = {r.id: r for r in build_function_models(parse(LET_SPEC))[0].requirements}
    assert reqs["W-1"].unsupported is None and reqs["W-2"].unsupported is None
    assert "amount > balance" in str(reqs["W-2"].post)  # W-2 holds only where W-1 does not raise
    assert _replay(tmp_path, "negative", ["0", "1"], spec=LET_SPEC).data["returned"] == 1
    excluded = _replay(tmp_path, "ok", ["0", "1"], "W-2", spec=LET_SPEC)  # outside W-2's domain
    assert (excluded.outcome, excluded.data["kind"]) == ("violation", "pre")
