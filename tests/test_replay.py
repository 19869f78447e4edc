"""Concrete replay: contracts are enforced in the replay process, and a precondition violation is told
apart from a postcondition violation (a counterexample that breaks a precondition refutes nothing)."""

from __future__ import annotations

from pathlib import Path

from evalgap.specs_lang import parse
from evalgap.translators import build_harness
from evalgap.verifier.engine import replay
from evalgap.verifier.targets import resolve_target


def _setup(tmp_path: Path) -> tuple[Path, object, object]:
    (tmp_path / "t_mod.py").write_text("def dec(n: int) -> int:\n    return n - 1\n")
    spec = parse('function dec(n: int) -> int\n  requirement D-1 "Positive inputs only."\n    requires n > 0\n'
                 '  requirement D-2 "The result is non-negative."\n    ensures result >= 0\n')
    target = resolve_target("t_mod.py", tmp_path)
    harness = build_harness(spec, target.module, "h_replay")
    hdir = tmp_path / "h"
    hdir.mkdir()
    (hdir / "h_replay.py").write_text(harness.source)
    return hdir, harness, target


def test_precondition_violation_is_not_a_postcondition_violation(tmp_path: Path) -> None:
    hdir, harness, target = _setup(tmp_path)
    fn = harness.obligation("D-2").function  # type: ignore[attr-defined]
    pre = replay(hdir, harness, target, fn, ["0"])  # type: ignore[arg-type]
    assert (pre.outcome, pre.data.get("kind")) == ("violation", "pre")
    ok = replay(hdir, harness, target, fn, ["5"])  # type: ignore[arg-type]
    assert ok.outcome == "passed"
