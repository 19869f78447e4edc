"""``may raise EXC, ...``: the listed exception classes may escape the call without refuting the requirement's
``ensures``; anything else escaping (and anything a clause raises) still refutes it.

Checked through the language (parse, format, checker codes EG218/EG231/EG232), the harness's meaning by
concrete replay, the Z3 analysis, the importers (PEP 316 ``raises:``, ``@deal.raises``), and hostile targets
through both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.specs_lang import SpecError, parse
from evalgap.specs_lang import ast as A
from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang.format import format_spec
from evalgap.translators import build_harness
from evalgap.translators.to_icontract import Harness
from evalgap.verifier.analysis.run import analyze_spec
from evalgap.verifier.engines.run import ReplayResult, replay
from evalgap.verifier.findings import Verdict
from evalgap.verifier.project.targets import resolve_target

SPEC = '''spec md "may raise"
  target: tgt.py

function mydiv(x: int, y: int) -> float
  requirement MD-1 "y is not zero."
    requires y != 0
  requirement MD-2 "A float; an OverflowError is allowed."
    ensures isinstance(result, float)
    may raise OverflowError
'''


def _codes(text: str) -> list[str]:
    try:
        check_spec(parse(text, "m.req"), text)
    except SpecError as exc:
        return [d.code for d in exc.diagnostics]
    return []


def test_parse_and_canonical_format() -> None:
    text = SPEC.replace("may raise OverflowError", "may   raise OverflowError ,os.error")
    spec = parse(text, "m.req")
    clause = spec.functions[0].requirements[1].clauses[1]
    assert clause == A.MayRaise(("OverflowError", "os.error"))
    out = format_spec(spec, text)
    assert "    may raise OverflowError, os.error\n" in out
    assert format_spec(parse(out, "m.req"), out) == out  # idempotent
    assert _codes(SPEC) == []


@pytest.mark.parametrize(("clause", "code"), [
    ("may raise SystemExit", "EG231"),
    ("may raise BaseException", "EG231"),
    ("may raise ValueError, KeyboardInterrupt", "EG231"),
    ("may raise builtins.GeneratorExit", "EG231"),
])
def test_classes_a_target_could_exit_through_are_rejected(clause: str, code: str) -> None:
    assert _codes(SPEC.replace("may raise OverflowError", clause)) == [code]


def test_may_raise_needs_an_ensures_and_a_function() -> None:
    alone = SPEC.replace("    ensures isinstance(result, float)\n", "")
    assert _codes(alone) == ["EG232"]
    with_raises = alone.replace("    may raise", "    raises ZeroDivisionError when y == 0\n    may raise")
    assert _codes(with_raises) == ["EG232"]
    top = 'spec t "t"\n\nrequirement T-1 "x"\n  may raise ValueError\n  scenario (n: int):\n    expect n == n\n'
    assert "EG218" in _codes(top)


def _harness(tmp_path: Path, impl: str, spec: str = SPEC) -> tuple[Path, Harness, object]:
    (tmp_path / "tgt.py").write_text(impl)
    target = resolve_target("tgt.py", tmp_path)
    harness = build_harness(parse(spec, "m.req"), target.module, "h_may")
    hdir = tmp_path / "h"
    hdir.mkdir(exist_ok=True)
    (hdir / "h_may.py").write_text(harness.source)
    return hdir, harness, target


def _replay(tmp_path: Path, impl: str, args: list[str], req: str = "MD-2", spec: str = SPEC) -> ReplayResult:
    hdir, harness, target = _harness(tmp_path, impl, spec)
    fn = harness.obligation(req).function
    assert fn is not None
    return replay(hdir, harness, target, fn, args)  # type: ignore[arg-type]


DIV = "def mydiv(x: int, y: int) -> float:\n    return x / y\n"


def test_only_the_call_is_guarded(tmp_path: Path) -> None:
    _, harness, _ = _harness(tmp_path, DIV)
    ob = harness.obligation("MD-2")
    assert ob.kind == "scenario" and ob.target_function == "mydiv"
    assert ob.preconditions == ("MD-1", "may raise OverflowError")
    fn_src = harness.source.split(f"def {ob.function}(", 1)[1]
    lines = [ln.strip() for ln in fn_src.splitlines()[:12]]
    i = lines.index("try:")
    # the try holds the call alone; the ensures is read in the else block, where nothing is caught
    assert lines[i + 1] == "result = mydiv(x, y)"
    assert lines[i + 2] == "except (OverflowError,) as _eg_exc:"
    assert lines[i + 3:i + 6] == ["if not isinstance(_eg_exc, Exception):", "raise", "else:"]
    assert lines[i + 6].startswith("if not (isinstance(result, float))")


@pytest.mark.parametrize(("impl", "args", "outcome"), [
    (DIV, [str(2 ** 1100), "1"], "passed"),                    # OverflowError: allowed
    (DIV, ["6", "3"], "passed"),                                # a float
    ("def mydiv(x: int, y: int) -> float:\n    return x // y\n", ["6", "3"], "violation"),  # an int: the ensures
    ("def mydiv(x: int, y: int) -> float:\n    raise ArithmeticError('x')\n", ["6", "3"], "exception"),  # a base
    ("class Quit(OverflowError, BaseException):\n    pass\n\n\ndef mydiv(x: int, y: int) -> float:\n"
     "    raise Quit()\n", ["6", "3"], "passed"),                 # a subclass that is an Exception: allowed
])
def test_replay_meaning(tmp_path: Path, impl: str, args: list[str], outcome: str) -> None:
    rep = _replay(tmp_path, impl, args)
    assert rep.outcome == outcome, rep.data
    if outcome == "exception":
        assert rep.data["type"] == "ArithmeticError" and not rep.data["in_harness"]


HOSTILE = '''class Evil(BaseException):
    """Derives from BaseException only, like CrossHair's own path-control exceptions."""


def looks_fine(y: float) -> bool:
    raise OverflowError("raised while the postcondition is evaluated")


def mydiv(x: int, y: int) -> float:
    return x / y


def escapes(x: int, y: int) -> float:
    raise Evil("exit to a pass")
'''
CLAUSE_RAISES = SPEC + '''  requirement MD-3 "The result looks fine (the clause raises an allowed class)."
    ensures looks_fine(result)
    may raise OverflowError

function escapes(x: int, y: int) -> float
  requirement ES-1 "A float; Evil (a BaseException) is listed."
    ensures isinstance(result, float)
    may raise Evil
  requirement ES-2 "A float; OverflowError is allowed."
    ensures isinstance(result, float)
    may raise OverflowError
'''


def test_replay_never_excuses_a_clause_or_a_base_exception(tmp_path: Path) -> None:
    rep = _replay(tmp_path, HOSTILE, ["6", "3"], "MD-3", CLAUSE_RAISES)
    assert rep.outcome == "exception" and rep.data["type"] == "OverflowError", rep.data
    for req in ("ES-1", "ES-2"):
        rep = _replay(tmp_path, HOSTILE, ["6", "3"], req, CLAUSE_RAISES)
        assert rep.outcome == "exception" and rep.data["type"] == "Evil", (req, rep.data)


@pytest.mark.adversarial
@pytest.mark.slow
def test_hostile_targets_are_never_verified(tmp_path: Path) -> None:
    """Through both engines: an allowed class raised from inside the clause, and a BaseException subclass
    (listed, or not), never end `verified` (nor `no-counterexample`)."""
    from enginehelp import run_check, write_case

    spec = write_case(tmp_path, HOSTILE, CLAUSE_RAISES.replace("tgt.py", "{target}"))
    results = {r.id: r for r in run_check(spec, engines=("crosshair", "hypothesis"), budget_s=4.0, jobs=2)}
    for rid in ("MD-3", "ES-1", "ES-2"):
        verdicts = {v.engine: v.verdict for v in results[rid].verdicts}
        assert Verdict.VERIFIED not in verdicts.values() and Verdict.NO_COUNTEREXAMPLE not in verdicts.values(), \
            (rid, verdicts)
        assert results[rid].verdict is Verdict.REFUTED, (rid, verdicts)  # Hypothesis replays it concretely
    assert results["MD-2"].verdict is not Verdict.REFUTED  # the correct function: its OverflowError is excused


def test_z3_reads_the_outcome() -> None:
    spec = parse('''spec z "z"

function pick(xs: list[int]) -> int
  requirement P-1 "An element of xs; IndexError on an empty list is allowed."
    ensures result in xs
    may raise IndexError

function pick2(xs: list[int]) -> int
  requirement Q-1 "An element of xs."
    ensures result in xs
  requirement Q-2 "Not negative; ValueError allowed."
    ensures result >= 0
    may raise ValueError
''', "z.req")
    found = analyze_spec(spec, timeout_s=5).findings
    by = {(f.scope, f.kind): f for f in found}
    assert by[("function pick", "realizable")].message.endswith("(or may raise IndexError)")
    # the constant-result witnesses are about normal returns (none: `result in xs`), raising is one
    wit = [f for f in found if f.scope == "function pick" and f.kind == "witness"]
    assert len(wit) == 1 and (wit[0].witness or "").endswith("-> raises IndexError"), wit
    # Q-1 allows no exception: on [] no result and no allowed outcome exists
    assert by[("function pick2", "unrealizable")].witness == "pick2([])"


def test_importers_translate_allow_lists(tmp_path: Path) -> None:
    from evalgap.research.import_python import import_python

    src = tmp_path / "src"
    src.mkdir()
    (src / "p.py").write_text('def f(x: int, y: int) -> float:\n    """\n    pre: y != 0\n    raises: '
                              'OverflowError, ValueError\n    post: _ >= 0 or _ < 0\n    """\n    return x / y\n\n\n'
                              'def g(x: int) -> int:\n    """\n    raises: SystemExit\n    post: _ == x\n    """\n'
                              '    return x\n')
    (src / "d.py").write_text("import deal\n\n\n@deal.raises(ZeroDivisionError)\n@deal.post(lambda r: r >= 0)\n"
                              "def h(x: int) -> float:\n    return 1 / x\n")
    import_python("pep316", src / "p.py", tmp_path / "p")
    text = (tmp_path / "p" / "p.req").read_text()
    assert ("  requirement F-2 \"PEP 316 `raises:` line of f (p.py:4): OverflowError, ValueError\"\n"
            "    ensures True\n    may raise OverflowError, ValueError\n") in text
    assert "    ensures result >= 0 or result < 0\n    may raise OverflowError, ValueError\n" in text
    # SystemExit is refused (EG231): the contract stays informal, with the checker's reason
    assert "informal omission" in text.split("function g", 1)[1] and "EG231" in text
    import_python("deal", src / "d.py", tmp_path / "d")
    dtext = (tmp_path / "d" / "d.req").read_text()
    assert "    ensures result >= 0\n    may raise ZeroDivisionError\n" in dtext
    assert "    ensures True\n    may raise ZeroDivisionError\n" in dtext
