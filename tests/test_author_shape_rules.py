"""The requirements-document round of issue 24: result-shape rules (one per input element, element-wise
maps, descending order), a method's "the <object> is empty" condition, linting clauses of several targets in
one probe, and the signature probe reading the classes of a module whose source it parses once."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.translators.prose_match import match_rules
from evalgap.translators.prose_draft import lint_pairs
from evalgap.translators.prose_terms import Clause, Context, Signature

LEVELS = Signature("restock", (("levels", "list[int]"), ("amount", "int")), "list[int]")


def _clauses(sentence: str, sig: Signature) -> list[str]:
    return [f"{c.kind} {c.text}" for _, c in match_rules(sentence, Context(sig))]


def test_one_result_element_per_input_element() -> None:
    assert _clauses("It returns a new list with one level per input level.", LEVELS) == [
        "ensures len(result) == len(levels)"]
    assert _clauses("The result has as many entries as `levels`.", LEVELS) == ["ensures len(result) == len(levels)"]
    entries = Signature("f", (("entries", "list[str]"),), "list[int]")
    assert _clauses("Returns a list with one count for each entry.", entries) == ["ensures len(result) == len(entries)"]
    # the noun names no collection parameter (amount is an int): nothing is guessed
    assert _clauses("It returns a new list with one level per amount.", LEVELS) == []
    # an int result has no length
    assert _clauses("It returns one level per input level.", Signature("g", (("levels", "list[int]"),), "int")) == []


def test_elementwise_arithmetic_map() -> None:
    assert _clauses("Each returned level equals the input level plus `amount`.", LEVELS) == [
        "ensures forall i in range(min(len(result), len(levels))): result[i] == levels[i] + amount"]
    assert _clauses("Every returned level is the corresponding level times 2.", LEVELS) == [
        "ensures forall i in range(min(len(result), len(levels))): result[i] == levels[i] * 2"]
    # not about the result, or an operand that is not understood: no clause
    assert _clauses("Each level equals the input level plus `amount`.", LEVELS) == []
    assert _clauses("Each returned level equals the input level plus a bonus.", LEVELS) == []


@pytest.mark.parametrize("sentence", ["Returns the n largest scores, from largest to smallest.",
                                      "Returns the scores in descending order.",
                                      "Returns the scores, highest first."])
def test_descending_order_phrasings(sentence: str) -> None:
    sig = Signature("top", (("scores", "list[int]"), ("n", "int")), "list[int]")
    assert "ensures forall i in range(len(result) - 1): result[i] >= result[i + 1]" in _clauses(sentence, sig)


def test_the_object_of_a_method_being_empty() -> None:
    one = Signature("take", (), "str", "Shelf", "method", (("label", "str"), ("count", "int"), ("items", "list[str]")))
    assert _clauses("The method shall raise KeyError if the shelf is empty.", one) == [
        "raises KeyError when len(self.items) == 0"]
    assert _clauses("Raises KeyError if it is empty.", one) == ["raises KeyError when len(self.items) == 0"]
    # two collection attributes: which one is "the shelf"? Nothing is guessed
    two = Signature("take", (), "str", "Shelf", "method", (("items", "list[str]"), ("tags", "set[str]")))
    assert _clauses("The method shall raise KeyError if the shelf is empty.", two) == []
    # another object's name, or a function (no object): nothing
    assert _clauses("The method shall raise KeyError if the basket is empty.", one) == []
    fn = Signature("take", (("label", "str"),), "str")
    assert _clauses("Raises KeyError if the shelf is empty.", fn) == []


def test_clauses_of_several_targets_linted_in_one_probe() -> None:
    f = Signature("f", (("xs", "list[int]"),), "int")
    g = Signature("g", (("text", "str"),), "str")
    take = Signature("take", (), "str", "Shelf", "method", (("items", "list[str]"),))
    pairs = [(f, Clause("ensures", "result >= 0")), (g, Clause("ensures", "len(result) <= len(text)")),
             (f, Clause("ensures", "len(result) > 0")),  # f returns an int: EG216
             (take, Clause("raises", "KeyError when len(self.items) == 0")),
             (g, Clause("ensures", "result >="))]  # a syntax error in the same probe as the others
    out = lint_pairs(pairs)
    assert [p is None for p in out] == [True, True, False, True, False]
    # each diagnostic comes from a probe of that clause alone (the batch was split), naming that clause
    assert "EG216" in str(out[2]) and "ensures len(result) > 0" in str(out[2])
    assert "EG101" in str(out[4]) and "ensures result >=" in str(out[4])


def test_signature_probe_reads_every_class_of_a_module(tmp_path: Path) -> None:
    from evalgap.verifier.project.signatures import target_signatures
    from evalgap.verifier.project.targets import resolve_target

    (tmp_path / "m.py").write_text(
        "class A:\n    def __init__(self):\n        self.x = 1\n"
        "if True:\n    class B(A):\n        def f(self):\n            self.z = 3\n"
        "E = type('E', (), {})\n"
        "def make():\n    class L:\n        def __init__(self):\n            self.w = 1\n    return L\nL = make()\n"
        + "".join(f"class C{i}:\n    def __init__(self):\n        self.a{i} = {i}\n" for i in range(300)))
    sig = target_signatures(resolve_target(str(tmp_path / "m.py"), tmp_path)).to_json()["classes"]
    got = {n: (c["attributes"], c["open_attributes"]) for n, c in sig.items() if not n.startswith("C")}
    assert got == {"A": (["x"], False), "B": (["x", "z"], False), "E": ([], True), "L": (["w"], False)}
    assert sig["C299"]["attributes"] == ["a299"] and len(sig) == 304
