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
