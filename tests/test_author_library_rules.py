"""The library-docstring round of issue 24: conditions and guards of `evalgap author`'s pattern engine on
sentences as library docstrings write them (type tests, membership, Returns-whether entries, parameters
left at their defaults, generator results, code fragments)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from evalgap.translators.from_prose import draft_spec, load_units, signature_of
from evalgap.translators.prose_match import match_rules
from evalgap.translators.prose_terms import Context, Signature


def _clauses(sentence: str, sig: Signature) -> list[str]:
    return [f"{c.kind} {c.text}" for _, c in match_rules(sentence, Context(sig))]


def _sig(src: str) -> Signature:
    fn = ast.parse(src).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return signature_of(fn)


def test_type_tests_membership_and_blank_in_returns_whether_entries() -> None:
    any_value = Signature("is_x", (("value", "Any"),), "bool")
    assert _clauses("Returns whether `value` is a ``dict``.", any_value) == ["ensures result == (isinstance(value, dict))"]
    assert _clauses("Whether `value` is ``list`` or ``dict``.", any_value) == [
        "ensures result == ((isinstance(value, list) or isinstance(value, dict)))"]
    assert _clauses("Checks if `value` is an integer.", any_value) == [
        "ensures result == ((isinstance(value, int) and not isinstance(value, bool)))"]
    # a sign test of an untyped parameter is guarded, so that the clause does not raise on a string
    assert _clauses("Checks if `value` is even.", any_value) == [
        "ensures result == (isinstance(value, (int, float)) and not isinstance(value, bool) and value % 2 == 0)"]
    assert _clauses("Returns whether `text` is blank.", Signature("b", (("text", "Any"),), "bool")) == [
        'ensures result == (isinstance(text, str) and text.strip() == "")']
    two = Signature("has", (("text", "Any"), ("subtext", "Any")), "bool")
    assert _clauses("Returns whether `subtext` is included in `text`.", two) == ["ensures result == (subtext in text)"]


def test_a_phrase_binds_a_parameter_only_by_its_name_never_the_result() -> None:
    # "a given value" names no parameter (from_index is the only int one): nothing is guessed
    sig = Signature("includes", (("collection", "list[Any]"), ("target", "Any"), ("from_index", "int")), "bool")
    assert _clauses("Checks if a given value is present in a collection.", sig) == []
    # "the returned value" is the result, not the parameter named value
    sig2 = Signature("r", (("value", "Any"), ("format", "str")), "Any")
    assert _clauses("If we are using a format which truncates the value, the returned value will be of type `int`.",
                    sig2) == []


def test_parameters_left_at_their_defaults_guard_the_clause_and_a_sentinel_default_blocks_it() -> None:
    sig = _sig("def includes(collection: list, target, from_index: int = 0) -> bool: ...")
    assert _clauses("Returns whether `target` is in `collection`.", sig) == [
        "ensures (from_index == 0) ==> (result == (target in collection))"]
    sentinel = _sig("def includes(collection: list, target, start=UNSET) -> bool: ...")
    assert _clauses("Returns whether `target` is in `collection`.", sentinel) == []
    # a required comparator changes what "equal" means: no clause
    assert _clauses("Returns whether `value` and `other` are equal.",
                    _sig("def eq(value, other, customizer) -> bool: ...")) == []


def test_generator_results_and_code_fragments_are_not_read() -> None:
    gen = _sig("def unique(seq, key=None):\n    yield from seq\n")
    assert gen.generator
    assert _clauses("Return only unique elements of a sequence.", gen) == []  # len(result) of an iterator
    lst = _sig("def unique(seq: list[int]) -> list[int]: ...")
    assert _clauses("Return only unique elements of a sequence.", lst) == ["ensures len(set(result)) == len(result)"]
    code = "keyfunc = lambda x: x.upper(). result = map_reduce('abbccc', keyfunc). sorted(result.items()) [('A', ['a'])]."
    assert _clauses(code, _sig("def map_reduce(iterable, keyfunc) -> list: ...")) == []
    assert _clauses("Return the sum of the squares of the input values.",
                    _sig("def f(iterable: list[int]) -> int: ...")) == []
    cond = "If the length of iterable is smaller than n, then the last returned iterables will be empty."
    assert _clauses(cond, _sig("def divide(n: int, iterable: list[int]) -> list: ...")) == []


def test_reverse_first_last_case_style_and_arg_choice() -> None:
    seq = Signature("f", (("array", "Sequence[int]"),), "Sequence[int]")
    assert _clauses("Return `array` in reverse order.", seq) == ["ensures list(result) == list(array)[::-1]"]
    assert _clauses("Return the last element of `array`.", seq) == ["ensures len(array) > 0 ==> result == array[-1]"]
    assert _clauses("Return `array` in reverse order.", Signature("f", (("array", "Any"),), "Any")) == []
    text = Signature("f", (("text", "Any"),), "str")
    assert _clauses("Converts `text` to snake case.", text) == [
        "ensures forall c in result: not c.isspace()", "ensures result == result.lower()"]
    g = Signature("f", (("value", "int"), ("gender", "str")), "str")
    assert _clauses('Argument gender: Gender for translations. Must be one of "male", "female" or "neutral".', g) == [
        'requires gender in ("male", "female", "neutral")']
    assert _clauses("Argument gender: Gender for translations.", g) == []


def test_a_library_module_drafts_with_the_new_rules(tmp_path: Path) -> None:
    src = tmp_path / "preds.py"
    src.write_text('def is_string(value) -> bool:\n    """Checks if `value` is a string.\n\n    Args:\n'
                   '        value: Value to check.\n\n    Returns:\n        bool: Whether `value` is a string.\n    """\n'
                   '    return isinstance(value, str)\n', encoding="utf-8")
    draft = draft_spec(load_units(src), name="preds")
    formal = [r for r in draft.requirements() if r.clauses and not r.signature_only]
    assert [c.text for r in formal for _, c in r.clauses] == ["result == (isinstance(value, str))"] * 2


@pytest.mark.skipif(importlib.util.find_spec("pydash") is None, reason="pydash is not installed (pip install pydash)")
def test_pydash_predicates_are_formalized() -> None:
    import pydash.predicates

    draft = draft_spec(load_units(Path(pydash.predicates.__file__)), name="predicates")
    texts = {c.text for r in draft.requirements() if not r.signature_only for _, c in r.clauses}
    assert "result == (isinstance(value, tuple))" in texts
    assert 'result == (isinstance(text, str) and text.strip() == "")' in texts
