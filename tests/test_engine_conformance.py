"""What every registered engine must do (issue 15): a new engine is one module plus one registration line,
and it passes these checks before it ships. Each engine runs on a known-wrong target, a known-right one and
a target that fails at import; the verdicts name the engine, a refutation carries a replayed
counterexample and a reproducer, and nothing the target does raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.verifier.engines import registry
from evalgap.verifier.findings import Verdict
from evalgap.verifier.options import ENGINES, parse_engines

SPEC = """\
spec c "conformance"
  target: {target}

function inc(n: int) -> int
  requirement C-1 "Returns one more than its argument."
    ensures result == n + 1
"""
EXAMPLES = """\
spec c "conformance"
  target: {target}

function inc(n: int) -> int
  requirement C-1 "inc(1) is 2 and inc(4) is 5."
    example inc(1) == 2
    example inc(4) == 5
"""
WRONG = "def inc(n: int) -> int:\n    return n + 1 if n < 3 else n\n"
RIGHT = "def inc(n: int) -> int:\n    return n + 1\n"
BROKEN = "raise RuntimeError('cannot import me')\ndef inc(n: int) -> int:\n    return n + 1\n"


def _spec_for(engine: str) -> str:
    return EXAMPLES if engine == "example" else SPEC


def test_the_registry_holds_the_builtin_engines_and_options_agree() -> None:
    assert set(registry.names()) >= {"crosshair", "hypothesis", "example"}
    assert registry.selectable_names() == ("crosshair", "hypothesis")
    assert set(ENGINES) <= set(registry.selectable_names())
    assert parse_engines("hypothesis,crosshair") == ("hypothesis", "crosshair")
    for name in registry.names():
        engine = registry.get(name)
        assert engine is not None and engine.name == name
        assert isinstance(engine.budget(__import__("evalgap").Settings()), dict)


@pytest.mark.parametrize("engine", registry.names())
def test_every_engine_refutes_a_wrong_target_with_a_replayed_counterexample(engine: str, tmp_path: Path) -> None:
    spec = write_case(tmp_path, WRONG, _spec_for(engine), name="t")
    [r] = run_check(spec, budget_s=3, engines=(engine,) if engine != "example" else ("crosshair",))
    [v] = r.verdicts
    assert v.engine == engine
    assert v.verdict is Verdict.REFUTED, v.reason
    assert v.counterexample and "inc(" in v.counterexample
    assert v.reproducer and "inc(" in v.reproducer


@pytest.mark.parametrize("engine", registry.names())
def test_every_engine_accepts_a_right_target(engine: str, tmp_path: Path) -> None:
    spec = write_case(tmp_path, RIGHT, _spec_for(engine), name="t")
    [r] = run_check(spec, budget_s=3, engines=(engine,) if engine != "example" else ("crosshair",))
    [v] = r.verdicts
    assert v.engine == engine
    assert v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE), v.reason
    assert v.reason and v.counterexample is None


@pytest.mark.parametrize("engine", registry.names())
def test_no_engine_raises_for_a_target_that_fails_at_import(engine: str, tmp_path: Path) -> None:
    spec = write_case(tmp_path, BROKEN, _spec_for(engine), name="t")
    [r] = run_check(spec, budget_s=3, engines=(engine,) if engine != "example" else ("crosshair",))
    [v] = r.verdicts
    assert v.engine == engine
    assert v.verdict is Verdict.UNKNOWN and "cannot import me" in v.reason, v.reason


def test_an_unregistered_engine_name_is_an_unknown_verdict_not_a_crash(tmp_path: Path) -> None:
    spec = write_case(tmp_path, RIGHT, SPEC, name="t")
    [r] = run_check(spec, budget_s=1, engines=("nonesuch",))
    assert r.verdict is Verdict.UNKNOWN and "no engine named 'nonesuch'" in r.verdicts[0].reason
