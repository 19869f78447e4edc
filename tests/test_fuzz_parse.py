"""Fuzzing the parser: only SpecError subclasses carrying a span inside the input escape ``parse()``."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalgap.specs_lang import SpecError, parse
from evalgap.specs_lang.check import check_spec

SPECS = Path(__file__).parent / "specs"
SEEDS = [p.read_text() for p in sorted(SPECS.glob("*.req"))] + [
    (Path(__file__).parents[1] / "case_studies" / "kvstore" / "kvstore.req").read_text()]
ALPHABET = st.sampled_from(list(" \t\n\"'#()[]{}:,.-=<>!+*/%\\_0123456789abcxyzABC") +
                           ["requirement ", "function ", "ensures ", "forall ", "..", "==>", "in ", "old(",
                            "scenario (", "expect ", "raises ", "  ", "\n  ", "\n    ", "\x00", "é", "\r\n"])


def _assert_only_spec_errors(text: str) -> None:
    try:
        spec = parse(text, "fuzz.req")
    except SpecError as exc:
        lines = max(1, text.count("\n") + 1)
        for d in exc.diagnostics:
            assert 1 <= d.span.line <= lines + 1, (d, text)
            assert d.span.col >= 1
        assert exc.render()
        return
    try:
        check_spec(spec, text, None)
    except SpecError as exc:
        assert exc.render()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_random_text(text: str) -> None:
    _assert_only_spec_errors(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 8), ALPHABET), min_size=1,
                                        max_size=4))
def test_mutated_valid_specs(seed: str, edits: list[tuple[int, int, str]]) -> None:
    text = seed
    for pos, cut, ins in edits:
        i = pos % (len(text) + 1)
        text = text[:i] + ins + text[i + cut:]
    _assert_only_spec_errors(text)
