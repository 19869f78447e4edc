"""Spec strength by mutation analysis (issue 25): the mutation operators, the strength figure and the `weak`
flag, the differential equivalence check, and `check --strength` end to end on a spec with a known weak
clause."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgap.verifier.findings import RequirementResult, Strength, Verdict
from evalgap.verifier.report.gap import parse_fail_on, requirement_flags
from evalgap.verifier.strength.mutants import MutationError, mutants_of
from evalgap.verifier.strength.run import _agree_source
from egtest import run_cli

GCD = '''def gcd(a: int, b: int) -> int:
    """Greatest common divisor."""
    while b != 0:
        a, b = b, a % b
    return abs(a)


class Stack:
    def push(self, x: int) -> None:
        if x > 0 and x < 10:
            self.items.append(x)
'''


def test_mutants_cover_the_operators_and_each_changes_one_thing() -> None:
    ms = mutants_of(GCD, "gcd", limit=30)
    assert [m.description for m in ms] == [
        "gcd line 3: `b != 0` -> `b == 0` (ROR)",
        "gcd line 4: `a % b` -> `a // b` (AOR)",
        "gcd line 3: `0` -> `1` (CRP)",
        "gcd line 3: `while b != 0:` -> `pass` (SDL)",
        "gcd line 5: `return abs(a)` -> `return None` (RVR)",
        "gcd line 3: `0` -> `-1` (CRP)",
    ]
    for m in ms:
        compile(m.source, "<mutant>", "exec")
        assert "Greatest common divisor." in m.source  # the docstring is never mutated
        assert "class Stack" in m.source and "x > 0 and x < 10" in m.source  # other functions untouched
    assert len({m.source for m in ms}) == len(ms)
    # a small limit samples across operators (round-robin), not the first operator's sites only
    assert [m.operator for m in mutants_of(GCD, "gcd", limit=3)] == ["ROR", "AOR", "CRP"]


def test_methods_are_mutated_by_their_qualified_name_and_bad_names_are_errors() -> None:
    ops = {m.operator for m in mutants_of(GCD, "Stack.push", limit=30)}
    assert ops == {"ROR", "LCR", "CRP"}
    assert all("def gcd" in m.source and "while b != 0" in m.source for m in mutants_of(GCD, "Stack.push"))
    with pytest.raises(MutationError, match="no function 'nope'"):
        mutants_of(GCD, "nope")
    with pytest.raises(MutationError, match="does not parse"):
        mutants_of("def f(:\n", "f")


def test_strength_ratio_leaves_out_equivalent_and_inconclusive_mutants() -> None:
    s = Strength(mutants=10, killed=2, equivalent=3, inconclusive=1, survivors=("f line 1: `a` -> `b` (ROR)",))
    assert s.scored == 6 and s.ratio == round(2 / 6, 4) and s.weak
    assert s.describe() == ("strength: kills 2 of 6 mutants (33 %; 3 likely equivalent; 1 inconclusive): weak, "
                            "e.g. it passes f line 1: `a` -> `b` (ROR)")
    strong = Strength(mutants=4, killed=4)
    assert strong.ratio == 1.0 and not strong.weak and strong.describe() == "strength: kills 4 of 4 mutants (100 %)"
    assert Strength(mutants=2, killed=0, equivalent=2).ratio is None and not Strength(2, 0, 2).weak


def test_the_weak_flag_needs_a_passing_verdict_and_fails_only_when_asked() -> None:
    weak = Strength(mutants=4, killed=1, survivors=("x",))
    base = RequirementResult("R-1", "p", "f:1:1", "formal", strength=weak)
    assert "weak" in requirement_flags(RequirementResult(**{**base.__dict__, "verdict": Verdict.VERIFIED}))
    assert "weak" in requirement_flags(RequirementResult(**{**base.__dict__, "verdict": Verdict.NO_COUNTEREXAMPLE}))
    assert "weak" not in requirement_flags(RequirementResult(**{**base.__dict__, "verdict": Verdict.REFUTED}))
    assert "weak" in parse_fail_on("refuted,weak")


def _load(code: str) -> dict[str, object]:
    ns: dict[str, object] = {}
    exec(compile(code, "<agree>", "exec"), ns)  # the test's own code: trusted, not a target
    return ns


def test_the_equivalence_helper_compares_results_exceptions_and_argument_state() -> None:
    original = "def f(xs, k):\n    if k == 0:\n        raise ValueError('k')\n    return sum(xs) // k\n"
    same = _load(original.replace("sum(xs) // k", "sum(xs) // k + 0") + (_agree_source(original, "f") or ""))
    agree = same["eg_agree__f"]
    assert callable(agree)
    assert agree([1, 2, 3], 2) is True and agree([], 0) is True  # same result; same exception type
    other_exc = _load(original.replace("raise ValueError('k')", "raise KeyError('k')") + (_agree_source(original, "f") or ""))
    assert other_exc["eg_agree__f"]([1], 0) is False  # type: ignore[operator]
    mutating = _load(original.replace("    return sum(xs) // k", "    xs.append(0)\n    return sum(xs) // k")
                     + (_agree_source(original, "f") or ""))
    assert mutating["eg_agree__f"]([1, 2], 1) is False  # type: ignore[operator]  # the argument changed
    rec = "def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n"
    wrong = _load(rec.replace("n * fact", "n + fact") + (_agree_source(rec, "fact") or ""))
    assert wrong["eg_agree__fact"](2) is False and wrong["eg_agree__fact"](1) is True  # type: ignore[operator]
    assert _agree_source("def g(*args):\n    return 1\n", "g") is None


ADULT = "def is_adult(age: int) -> bool:\n    return age >= 18\n"
ADULT_SPEC = '''spec adult
target: adult.py

function is_adult(age: int in 0..150) -> bool
  requirement A-1 "The answer is yes or no."
    ensures result == True or result == False
  requirement A-2 "Adults are 18 or older."
    ensures result == (age >= 18)
'''


def test_check_strength_flags_the_known_weak_requirement(tmp_path: Path) -> None:
    from evalgap.verifier.report.json_report import validate_report

    (tmp_path / "adult.py").write_text(ADULT)
    (tmp_path / "adult.req").write_text(ADULT_SPEC)
    out = tmp_path / "report.json"
    r = run_cli("check", str(tmp_path / "adult.req"), "--strength", "--budget", "1", "--no-cache", "-q",
                "--no-analysis", "--fail-on", "refuted,weak", "-f", "json", "-o", str(out))
    assert r.exit_code == 1, r.stderr  # nothing refuted: exit 1 comes from the weak requirement
    data = json.loads(out.read_text())
    assert validate_report(data) == []
    reqs = {q["id"]: q for q in data["requirements"]}
    a1, a2 = reqs["A-1"]["strength"], reqs["A-2"]["strength"]
    assert reqs["A-1"]["verdict"] in ("verified", "no-counterexample") and "weak" in reqs["A-1"]["flags"]
    assert (a1["mutants"], a1["killed"], a1["equivalent"]) == (4, 1, 0) and a1["weak"]
    assert "is_adult line 2: `age >= 18` -> `age > 18` (ROR)" in a1["survivors"]
    assert (a2["mutants"], a2["killed"], a2["ratio"]) == (4, 4, 1.0) and "weak" not in reqs["A-2"]["flags"]
    assert (tmp_path / "adult.py").read_text() == ADULT  # the original is never touched


def test_a_hostile_target_source_is_a_mutation_error_not_a_crash() -> None:
    deep = "def f(x):\n    return " + "(" * 400 + "x" + ")" * 400 + "\n"
    try:
        ms = mutants_of(deep, "f")
    except MutationError as exc:
        assert "nested too deeply" in str(exc) or "does not parse" in str(exc)
    else:
        assert all(m.function == "f" for m in ms)
    big = "def f(x):\n" + "".join(f"    x = x + {i}\n" for i in range(400)) + "    return x\n"
    ms = mutants_of(big, "f", limit=5)
    assert len(ms) == 5 and len({m.operator for m in ms}) >= 3
