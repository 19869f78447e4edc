"""Each Z3 analysis query on specs with a known answer (sat, unsat with the expected core, unknown)."""

from __future__ import annotations

import z3

from evalgap.specs_lang import parse
from evalgap.translators.to_z3 import build_function_models
from evalgap.verifier.analysis.run import analyze_spec
from evalgap.verifier.analysis.spec_findings import AnalysisReport, analysis_exit_code
from evalgap.verifier.analysis.z3_backend import minimal_core


def run(text: str, timeout: float = 3.0) -> AnalysisReport:
    return analyze_spec(parse(text), timeout)


def kinds(rep: AnalysisReport, kind: str) -> list[tuple[str, ...]]:
    return [f.requirements for f in rep.findings if f.kind == kind]


CONFLICT = '''function f(x: int) -> int
  requirement A-1 "positive"
    ensures result > 0
  requirement A-2 "bounded by x"
    ensures result <= x
  requirement A-3 "x small"
    requires x <= 0
  requirement A-4 "unrelated"
    ensures result != 7
'''


def test_conflict_minimal_core_by_deletion() -> None:
    rep = run(CONFLICT)
    assert kinds(rep, "conflict") == [("A-3", "A-1", "A-2")]  # preconditions first, then source order
    assert analysis_exit_code(rep) == 1
    f = rep.of_kind("conflict")[0]
    assert f.code == "EG301" and any('"positive"' in d for d in f.details)


def test_removing_any_core_member_makes_the_rest_consistent() -> None:
    x = z3.Int("x")
    named = [("a", x > 5), ("b", x < 3), ("c", x != 4), ("d", x > 10)]
    c = minimal_core(named, 2.0)
    assert c.status == "unsat" and c.minimal
    for drop in c.core:
        rest = [(n, f) for n, f in named if n in c.core and n != drop]
        assert minimal_core(rest, 2.0).status == "sat"
    assert set(c.core) in ({"a", "b"}, {"b", "d"})


def test_consistent_with_witness() -> None:
    rep = run('function f(x: int) -> int\n  requirement B-1 "r"\n    ensures result == x + 1\n')
    f = rep.of_kind("consistent")[0]
    assert f.code == "EG300" and f.witness is not None and f.witness.startswith("f(")
    assert kinds(rep, "realizable") == [("B-1",)]


def test_vacuous_precondition_and_implication() -> None:
    rep = run('''function f(x: int) -> int
  requirement V-1 "x big"
    requires x > 10
  requirement V-2 "x small"
    requires x < 5
  requirement V-3 "post"
    ensures result == 0
''')
    assert kinds(rep, "vacuous") == [("V-1", "V-2")]
    rep2 = run('''function g(x: int) -> int
  requirement W-1 "non-negative input"
    requires x >= 0
  requirement W-2 "negative inputs give -1"
    ensures x < 0 ==> result == -1
  requirement W-3 "result is x"
    ensures x >= 0 ==> result == x
''')
    vac = rep2.of_kind("vacuous")
    assert [f.requirements for f in vac] == [("W-2",)] and vac[0].code == "EG303"


def test_redundancy() -> None:
    rep = run('''function f(x: int) -> int
  requirement R-1 "r"
    ensures result == x * 2
  requirement R-2 "even"
    ensures result % 2 == 0
''')
    assert ("R-2",) in kinds(rep, "redundant") and analysis_exit_code(rep) == 0


def test_unrealizable_shows_input() -> None:
    rep = run('''function f(x: int) -> int
  requirement U-1 "for positive x the result exceeds and undercuts x"
    ensures x > 0 ==> result > x and result < x
''')
    f = rep.of_kind("unrealizable")[0]
    assert f.code == "EG305" and f.witness is not None
    x = int(f.witness[2:-1])
    assert x > 0
    assert analysis_exit_code(rep) == 1


def test_weak_spec_witnesses() -> None:
    rep = run('''function sort_list(l: list[int]) -> list[int]
  requirement S-1 "ordered"
    ensures forall i in range(len(result) - 1): result[i] <= result[i + 1]
function ident(l: list[int]) -> list[int]
  requirement I-1 "same length"
    ensures len(result) == len(l)
function add(x: int, y: int) -> int
  requirement D-1 "at least x"
    ensures result >= x
''')
    wits = rep.of_kind("witness")
    texts = [f.message for f in wits]
    assert any("sort_list(" in t and "may return `[]`" in t for t in texts)
    assert any("ident(" in t and "returning the argument `l` unchanged" in t for t in texts)
    assert any("add may ignore its argument `y`" in t for t in texts)
    assert not any("add may ignore its argument `x`" in t for t in texts)


def test_unknown_with_reason_and_fragment() -> None:
    rep = run('''function f(xs: list[int]) -> list[int]
  requirement N-1 "sorted"
    ensures result == sorted(xs)
requirement T-1 "scenario"
  scenario (k: int):
    expect k == k
''')
    msgs = {f.requirements: f.message for f in rep.of_kind("unknown")}
    assert msgs[("N-1",)] == "N-1: unknown (not in the Z3 fragment: sorted())"
    assert "not in the Z3 fragment: scenario clause" in msgs[("T-1",)]
    assert analysis_exit_code(rep) == 3
    # a nonlinear quantified query gives the solver's reason
    rep2 = run('''function isqrt(n: int) -> int
  requirement Q-1 "n >= 0"
    requires n >= 0
  requirement Q-2 "floor sqrt"
    ensures 0 <= result and result * result <= n < (result + 1) * (result + 1)
''', timeout=0.5)
    unk = [f for f in rep2.of_kind("unknown") if "realizability" in f.message]
    assert unk and "unknown (" in unk[0].message


def test_assume_and_ranges_are_preconditions() -> None:
    rep = run('''assume E-1 "inputs are small": x <= 100
function f(x: int in 200..300) -> int
  requirement F-1 "r"
    ensures result == x
''')
    assert kinds(rep, "vacuous") == [("E-1",)]


def test_models_keep_roles() -> None:
    m = build_function_models(parse(CONFLICT))[0]
    assert [r.role for r in m.requirements] == ["postcondition", "postcondition", "precondition", "postcondition"]


def test_codes_and_kinds_come_from_the_tables() -> None:
    from evalgap.verifier.analysis.spec_findings import ANALYSIS_CODES, FINDING_KINDS

    rep = run(CONFLICT + '''function g(x: float) -> float
  requirement G-1 "r"
    ensures result >= x / 2
''')
    assert rep.findings
    for f in rep.findings:
        assert f.code in ANALYSIS_CODES and f.kind in FINDING_KINDS
    assert any(f.kind == "approximated" for f in rep.findings)


def test_empty_parameter_range_is_vacuous() -> None:
    rep = run('function f(x: int in 5..1) -> int\n  requirement Z-1 "r"\n    ensures result == x\n')
    vac = rep.of_kind("vacuous")
    assert len(vac) == 1 and vac[0].code == "EG302" and "admit no input" in vac[0].message


SELF_CONTRADICTION = '''function fact(n: int) -> int
  requirement F-1 "The result is one more than itself."
    ensures result == fact(n) + 1
'''

SELF_RECURSIVE = '''function fact(n: int) -> int
  requirement F-1 "The result is n times fact(n - 1)."
    requires n >= 1
    ensures result == n * fact(n - 1)
  requirement F-2 "fact(0) is 1."
    ensures n != 0 or result == 1
  requirement F-3 "The result is positive."
    ensures result > 0
'''


def test_a_requirement_calling_its_own_function_sees_result_for_the_same_arguments() -> None:
    """A self-call on the block's own parameters is `result` (issue 19): `result == fact(n) + 1` is a
    conflict, not "consistent" with a made-up example, and the finding states the determinism it assumes."""
    rep = run(SELF_CONTRADICTION)
    assert kinds(rep, "conflict") == [("F-1",)]
    assert not rep.of_kind("consistent")
    f = rep.of_kind("conflict")[0]
    assert "F-1 can never hold" in f.message and "deterministic" in f.message
    assert analysis_exit_code(rep) == 1


def test_a_self_recursive_spec_gets_one_consistent_finding_and_no_contradicting_one() -> None:
    rep = run(SELF_RECURSIVE)
    assert kinds(rep, "consistent") == [("F-1", "F-2", "F-3")]
    assert not rep.of_kind("conflict") and not rep.of_kind("unrealizable") and not rep.of_kind("realizable")
    ok = rep.of_kind("consistent")[0]
    assert ok.witness is not None and "deterministic" in ok.message
    # the witness meets every requirement read literally: its result is positive, and 1 when n == 0
    arg, res = ok.witness.removeprefix("fact(").split(") -> ")
    assert int(res) > 0 and (int(arg) != 0 or int(res) == 1)


def test_witness_inputs_meet_the_requirements_own_preconditions() -> None:
    """A requirement's own ``requires`` narrows what it covers: a witness call outside it (``clamp(-1, 1, -1)``
    with lo > hi) shows an input the requirement says nothing about, so witnesses are drawn inside it, with
    distinct arguments so the one returned can be told apart."""
    import re

    rep = run('''function clamp(x: int, lo: int, hi: int) -> int
  requirement C-1 "within the bounds"
    requires lo <= hi
    ensures lo <= result and result <= hi
''')
    calls = [f.witness for f in rep.findings if f.witness]
    assert len(calls) == 3  # the consistency example and two returned arguments
    for call in calls:
        m = re.fullmatch(r"clamp\((-?\d+), (-?\d+), (-?\d+)\) -> (-?\d+)", call or "")
        assert m is not None, call
        x, lo, hi, result = map(int, m.groups())
        assert lo <= hi and lo <= result <= hi, call
    returned = [f for f in rep.of_kind("witness") if "returning the argument" in f.message]
    for f in returned:
        x, lo, hi = map(int, re.findall(r"-?\d+", (f.witness or "").split("->")[0]))
        assert len({x, lo, hi}) == 3, f.witness
