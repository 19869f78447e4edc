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
DATABASE = """\
spec c "conformance"
  target: {target}

database d "conformance" schema: "v1.sql"
  requirement C-1 "Every row is kept, one more than before (inc(n))."
    len(after.t) == len(before.t)
    forall r in before.t: forall s in after.t: s.id == r.id ==> s.n == r.n + 1
"""
MIGRATE = "\ndef migrate(conn):\n    for i, n in conn.execute('SELECT id, n FROM t').fetchall():\n" \
          "        conn.execute('UPDATE t SET n = ? WHERE id = ?', (inc(n), i))\n"
WRONG = "def inc(n: int) -> int:\n    return n + 1 if n < 3 else n\n"
RIGHT = "def inc(n: int) -> int:\n    return n + 1\n"
BROKEN = "raise RuntimeError('cannot import me')\ndef inc(n: int) -> int:\n    return n + 1\n"


def _spec_for(engine: str) -> str:
    # the enumeration engine needs a finite domain (it proves by calling every input)
    return {"example": EXAMPLES, "database": DATABASE,
            "enumeration": SPEC.replace("inc(n: int)", "inc(n: int in 0..9)")}.get(engine, SPEC)


def _case(engine: str, folder: Path, target: str) -> Path:
    """The conformance case of ``engine`` (the database engine: a table ``t(id, n)`` migrated with ``inc``)."""
    if engine == "database":
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "v1.sql").write_text("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);\n")
        target += MIGRATE
    return write_case(folder, target, _spec_for(engine), name="t")


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
    spec = _case(engine, tmp_path, WRONG)
    [r] = run_check(spec, budget_s=3, engines=(engine,) if engine != "example" else ("crosshair",))
    [v] = r.verdicts
    assert v.engine == engine
    assert v.verdict is Verdict.REFUTED, v.reason
    call = "on tables t: [(" if engine == "database" else "inc("  # the database engine's input is a table
    assert v.counterexample and call in v.counterexample
    assert v.reproducer and ("migrate(conn)" if engine == "database" else "inc(") in v.reproducer


@pytest.mark.parametrize("engine", registry.names())
def test_every_engine_accepts_a_right_target(engine: str, tmp_path: Path) -> None:
    spec = _case(engine, tmp_path, RIGHT)
    [r] = run_check(spec, budget_s=3, engines=(engine,) if engine != "example" else ("crosshair",))
    [v] = r.verdicts
    assert v.engine == engine
    assert v.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE), v.reason
    assert v.reason and v.counterexample is None


@pytest.mark.parametrize("engine", registry.names())
def test_no_engine_raises_for_a_target_that_fails_at_import(engine: str, tmp_path: Path) -> None:
    spec = _case(engine, tmp_path, BROKEN)
    [r] = run_check(spec, budget_s=3, engines=(engine,) if engine != "example" else ("crosshair",))
    [v] = r.verdicts
    assert v.engine == engine
    assert v.verdict is Verdict.UNKNOWN and "cannot import me" in v.reason, v.reason


def test_an_unregistered_engine_name_is_an_unknown_verdict_not_a_crash(tmp_path: Path) -> None:
    spec = write_case(tmp_path, RIGHT, SPEC, name="t")
    [r] = run_check(spec, budget_s=1, engines=("nonesuch",))
    assert r.verdict is Verdict.UNKNOWN and "no engine named 'nonesuch'" in r.verdicts[0].reason
