"""EG230 (issue 23): `evalgap lint` warns where an `ensures` forbids every exception but the target's
function raises one explicitly, pointing at `raises ... when`; a warning does not fail the lint."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from evalgap.specs_lang import parse
from evalgap.specs_lang.check_raises import exception_warnings
from evalgap.specs_lang.diagnostics import ENSURES_FORBIDS_RAISE
from evalgap.verifier.cli.main import cli
from evalgap.verifier.project.raises_scan import raised_exceptions

TARGET = '''\
class Account:
    def withdraw(self, amount):
        if amount > 10:
            raise ValueError("too much")
        def helper():
            raise KeyError("nested: not counted")
        return amount


def withdraw(balance, amount):
    if amount > balance:
        raise ValueError("insufficient funds")
    if amount < 0:
        raise errors.NegativeAmount
    return balance - amount
'''

SPEC = '''\
spec w "warn"
  target: w_t.py

function withdraw(balance: int, amount: int) -> int
  requirement W-1 "The new balance is balance - amount."
    ensures result == balance - amount
'''


def test_scan_reads_raise_statements(tmp_path: Path) -> None:
    f = tmp_path / "w_t.py"
    f.write_text(TARGET, encoding="utf-8")
    assert raised_exceptions(f) == {"Account.withdraw": {"ValueError": 4},
                                    "withdraw": {"ValueError": 12, "NegativeAmount": 14}}
    assert raised_exceptions(tmp_path / "missing.py") == {} and raised_exceptions(None) == {}


def test_warning_until_the_raises_clause_is_stated() -> None:
    raising = {"withdraw": {"ValueError": 11}}
    warns = exception_warnings(parse(SPEC), raising)
    assert [(w.code, w.span.line) for w in warns] == [(ENSURES_FORBIDS_RAISE, 6)]
    assert "raises ValueError when CONDITION" in (warns[0].hint or "")
    said = SPEC.replace("    ensures", "    raises ValueError when amount > balance\n    ensures")
    assert exception_warnings(parse(said), raising) == []
    other = SPEC + '  requirement W-2 "Overdrafts raise."\n    raises ValueError when amount > balance\n'
    assert exception_warnings(parse(other), raising) == []  # another requirement of the function says when


def test_lint_prints_the_warning_and_passes(tmp_path: Path) -> None:
    (tmp_path / "w_t.py").write_text(TARGET.replace("errors.NegativeAmount", "ValueError"), encoding="utf-8")
    spec = tmp_path / "w.req"
    spec.write_text(SPEC, encoding="utf-8")
    res = CliRunner().invoke(cli, ["lint", str(spec)])
    assert res.exit_code == 0, res.output
    assert "w.req:6:5: warning EG230: `ensures` of W-1 allows no exception, but `withdraw` raises ValueError" in res.output
    assert res.output.strip().endswith("w.req: ok (1 warning)")
