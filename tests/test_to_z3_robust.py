"""The Z3 translator on arbitrary expressions the grammar can produce: it returns a value or raises
:class:`UnsupportedConstruct` (an honest ``unknown``), never any other exception."""

from __future__ import annotations

from typing import Any

import pytest
import z3
from hypothesis import HealthCheck, given, settings

from evalgap.translators.errors import UnsupportedConstruct
from evalgap.translators.to_z3 import Translator, Val
from evalgap.translators.to_z3.types import BOOL, INT, REAL, STR, Ty, sort_of

from strategies import exprs, specs

_TYPES = {"a": INT, "b": INT, "c": BOOL, "n": INT, "m": REAL, "total": INT, "xs": Ty("seq", (INT,)),
          "ys": Ty("seq", (STR,)), "s": STR, "key": STR, "value": Ty("set", (INT,)), "t_1": Ty("tuple", (INT, STR))}


def _env() -> dict[str, Val]:
    return {n: Val(ty, z3.Const(n, sort_of(ty))) for n, ty in _TYPES.items()}


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs(max_leaves=8))
def test_translator_never_crashes(node: Any) -> None:
    t = Translator(_env())
    try:
        f = t.formula(node)
    except UnsupportedConstruct:
        return
    assert z3.is_bool(f)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(specs())
def test_analysis_never_crashes(spec: Any) -> None:
    from evalgap.verifier.analysis.run import analyze_spec
    from evalgap.verifier.analysis.spec_findings import ANALYSIS_CODES

    rep = analyze_spec(spec, 0.2)
    assert all(f.code in ANALYSIS_CODES for f in rep.findings)


@pytest.mark.parametrize("op", ["or", "and"])
def test_a_long_boolean_chain_builds_linear_guards(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each operand of `a or b or ...` is guarded by "the operands before it were false"; building that guard
    afresh per operand made a 1,000-term `requires` chain take 76 s in `analyze` (quadratic in Z3 terms)."""
    from evalgap.specs_lang import parse
    from evalgap.specs_lang import ast as A

    n = 400
    chain = f" {op} ".join(f"a == {i}" for i in range(n))
    spec = parse(f'spec s "S"\n\nfunction f(a: int) -> int\n  requirement R-1 "r"\n    requires {chain}\n'
                 "    ensures result >= 0\n")
    req, _fn = spec.all_requirements()[0]
    node = next(c.expr for c in req.clauses if isinstance(c, A.Requires))
    arguments = 0
    real_and = z3.And

    def counting_and(*args: Any) -> Any:
        nonlocal arguments
        arguments += len(args)
        return real_and(*args)

    monkeypatch.setattr(z3, "And", counting_and)
    f = Translator(_env()).formula(node)
    assert z3.is_bool(f)
    assert arguments <= 4 * n, f"{arguments} conjunct arguments for {n} operands: guards grow quadratically"
    solver = z3.Solver()  # and the meaning is unchanged: a == 7 satisfies the chain iff 7 < n (for `or`)
    solver.add(f, _env()["a"].term == 7)
    assert solver.check() == (z3.sat if op == "or" else z3.unsat)
