"""The formatter's central property: ``parse(format_spec(s)) == s`` over generated ASTs, and idempotence."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from evalgap.specs_lang import ast as A
from evalgap.specs_lang import parse
from evalgap.specs_lang.format import format_expr, format_spec
from strategies import exprs, specs


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs())
def test_expression_round_trip(e: A.Expr) -> None:
    text = format_expr(e)
    spec = parse(f"requirement R-1 \"p\"\n  example {text}\n")
    assert spec.requirements[0].clauses[0] == A.Example(e), text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(specs())
def test_spec_round_trip_and_idempotence(spec: A.Spec) -> None:
    text = format_spec(spec)
    again = parse(text)
    assert again == spec, text
    assert format_spec(again, text) == text
