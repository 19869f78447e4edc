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


def test_requirement_ids_with_leading_zeros_parse() -> None:
    from evalgap.specs_lang import parse

    spec = parse('spec s "t"\nfunction f(x: int) -> int\n  requirement LG-02 "x"\n    ensures result == 1\n'
                 '  requirement REQ-007.01 "y"\n    ensures result == 1\n', "<t>")
    assert [r.id for r in spec.functions[0].requirements] == ["LG-02", "REQ-007.01"]


def test_ids_a_document_gives_are_written_in_the_spec_form(tmp_path: Path) -> None:
    from evalgap.translators.from_prose import draft_spec, load_units, render_req, spec_id
    from evalgap.translators.prose_draft import lint_text

    assert [spec_id(g, "P") for g in ["LG-02", "`LG-02`", "**R1**", "7", "REQ 1", "R/1", "é", "R-1a"]] == [
        "LG-02", "LG-02", "R1", "P-7", "REQ-1", "R-1", None, None]
    (tmp_path / "m.py").write_text("def grade(score: int) -> str:\n    return 'A' if score >= 90 else 'B'\n")
    (tmp_path / "r.md").write_text(
        "# `grade`\n\n| ID | Requirement |\n|---|---|\n| LG-02 | A score of 90 or more earns an `\"A\"`. |\n"
        "| 7 | `grade` never returns None. |\n| REQ 1 | The result is not empty. |\n| é | It is fast. |\n")
    draft = draft_spec(load_units(tmp_path / "r.md", tmp_path / "m.py"), name="ids")
    text = render_req(draft)
    assert lint_text(text) is None, text
    ids = {r.id for r in draft.requirements()}
    assert {"LG-02", "REQ-1"} <= ids and any(i.endswith("-7") and i[0].isalpha() for i in ids), ids


def test_conditions_joined_blank_range_any_and_written() -> None:
    ctx = Context(Signature("f", (("name", "str"), ("score", "int"), ("scores", "list[int]"), ("low", "int"),
                                  ("high", "int")), "str"))
    assert ctx.condition("name is empty or consists only of whitespace") == '(len(name) == 0) or (name.strip() == "")'
    assert ctx.condition("a score below 0 or above 100") == "(score < 0) or (score > 100)"
    assert ctx.condition("low is greater than high or score is zero") == "(low > high) or (score == 0)"
    assert ctx.condition("low is greater than or equal to high") == "low >= high"  # "or equal" is no joint
    assert ctx.condition("score is outside 0 to 100") == "not (0 <= score <= 100)"
    assert ctx.condition("score is between 0 and 100") == "0 <= score <= 100"
    assert ctx.condition("any element of scores is outside 0 to 100") == "exists x in scores: not (0 <= x <= 100)"
    assert ctx.condition("low <= score <= high") == "low <= score <= high"  # written as an expression
    assert ctx.condition("low <= foo") is None  # a name that is no parameter
    assert ctx.condition("score is 0") == "score == 0"
    assert ctx.condition("score is high or low") is None  # a part not understood: no clause at all


def test_document_rules_of_the_requirements_round() -> None:
    grade = Signature("letter_grade", (("score", "int"),), "str")
    assert _clauses('The function returns one of "A", "B", "C", "D" or "F".', grade) == [
        'ensures result in ("A", "B", "C", "D", "F")']
    assert _clauses("The function raises ValueError for a score below 0 or above 100.", grade) == [
        "raises ValueError when (score < 0) or (score > 100)"]
    assert _clauses("The function raises ValueError for large inputs.", grade) == []
    clamp = Signature("clamp", (("value", "int"), ("low", "int"), ("high", "int")), "int")
    assert _clauses("When value is greater than high, the function shall return high.", clamp) == [
        "ensures (value > high) ==> result == high"]
    assert _clauses("Returns value itself when low <= value <= high, otherwise whichever bound is nearer.", clamp) == [
        "ensures (low <= value <= high) ==> result == value"]
    assert _clauses("Argument high: The upper end of the range; must not be smaller than low.", clamp) == [
        "requires high >= low"]
    curve = Signature("curve", (("scores", "list[int]"), ("bonus", "int")), "list[int]")
    assert _clauses("When bonus is 0, the function shall return a list equal to scores.", curve) == [
        "ensures (bonus == 0) ==> result == scores"]
    assert _clauses("The function shall leave the list passed as scores unchanged.", curve) == [
        "ensures scores == old(scores)"]
    add = Signature("add_score", (("student", "str"), ("score", "int")), "None", "Gradebook", "method", ())
    assert _clauses("When the method is called with a score outside 0 to 100, it shall raise ValueError.", add) == [
        "raises ValueError when not (0 <= score <= 100)"]
    mask = Signature("mask", (("text", "str"), ("visible", "int")), "str")
    assert _clauses("Argument visible: How many trailing characters stay readable; must be zero or more.", mask) == [
        "requires visible >= 0"]
    assert _clauses("Returns a string exactly as long as text in which all but the last characters are hidden.",
                    mask) == ["ensures len(result) == len(text)"]
    assert _clauses("When visible is 0, the function shall return a string consisting only of * characters.",
                    mask) == ['ensures (visible == 0) ==> forall c in result: c == "*"']
    norm = Signature("normalize", (("name", "str"),), "str")
    assert _clauses("The function shall be idempotent.", norm) == ["ensures normalize(result) == result"]
    assert _clauses("The result shall not begin or end with a whitespace character.", norm) == [
        "ensures result == result.strip()"]
    assert _clauses("The function returns an integer from 0 to 4.", Signature("s", (("p", "str"),), "int")) == [
        "ensures 0 <= result <= 4"]


def test_headings_and_wording_tell_the_target(tmp_path: Path) -> None:
    from evalgap.translators.from_prose import AMBIGUOUS_REASON, draft_spec, load_units, render_req

    (tmp_path / "m.py").write_text(
        "def password_strength(password: str) -> int:\n    return min(4, len(password))\n\n"
        "class Throttle:\n    def __init__(self, limit: int) -> None:\n        if limit < 1:\n"
        "            raise ValueError\n        self.limit = limit\n        self.seen: dict[str, int] = {}\n"
        "    def count(self, user: str) -> int:\n        return self.seen.get(user, 0)\n"
        "    def reset(self, user: str) -> None:\n        self.seen.pop(user, None)\n")
    (tmp_path / "r.md").write_text(
        "## Password strength\n\nThe function returns an integer from 0 to 4.\n\n## Throttle\n\n"
        "Args:\n    limit (int): How many failures lock a user; must be at least 1.\n\n"
        "- `Throttle(limit)` raises `ValueError` if `limit` is less than 1.\n"
        "- When `Throttle.reset(user)` returns, `count(user)` shall be 0.\n"
        "- Calling `count` and `reset` is cheap.\n")
    text = render_req(draft_spec(load_units(tmp_path / "r.md", tmp_path / "m.py"), name="t"))
    fn = text.split("function password_strength", 1)[1].split("\nclass ", 1)[0]
    assert "ensures 0 <= result <= 4" in fn  # mapped by its heading's words
    init = text.split("method __init__(limit: int)", 1)[1].split("  method ", 1)[0]
    assert "requires limit >= 1" in init and "raises ValueError when limit < 1" in init  # the constructor's
    assert text.count("method __init__") == 1
    reset = text.split("method reset(user: str)", 1)[1]
    assert "When `Throttle.reset(user)` returns" in reset  # "When X returns, ...": about X
    head = text.split("\nfunction ", 1)[0]
    assert "Calling `count` and `reset` is cheap." in head and AMBIGUOUS_REASON in head  # two named: ambiguous


def test_rules_of_the_second_document_round() -> None:
    pad = Signature("pad_label", (("name", "str"), ("width", "int")), "str")
    assert _clauses("A negative width is rejected with ValueError.", pad) == ["raises ValueError when width < 0"]
    assert _clauses("The function returns a string exactly max(len(name), width) characters long.", pad) == [
        "ensures len(result) == max(len(name), width)"]
    assert _clauses("The padded label always starts with name.", pad) == ["ensures result.startswith(name)"]
    assert _clauses("The name always starts with name.", pad) == []  # the subject is a parameter, not the result
    assert _clauses("A name that is already width characters or longer is returned unchanged.", pad) == [
        "ensures (len(name) >= width) ==> result == name"]
    assert Context(pad).condition("name is at least width characters long") == "len(name) >= width"
    assert Context(pad).operand("max(foo, 1)") is None  # a name that is no parameter
    clamp = Signature("clamp", (("value", "int"), ("low", "int"), ("high", "int")), "int")
    assert _clauses("The function shall return low for any value below low.", clamp) == [
        "ensures (value < low) ==> result == low"]
    assert _clauses("The function returns a number between low and high, inclusive.", clamp) == [
        "ensures low <= result <= high"]
    run = Signature("running_max", (("readings", "list[int]"),), "list[int]")
    assert _clauses("The result never decreases from one position to the next.", run) == [
        "ensures forall i in range(len(result) - 1): result[i] <= result[i + 1]"]
    assert _clauses("The first element of the result equals the first reading.", run) == [
        "ensures len(readings) > 0 and len(result) > 0 ==> result[0] == readings[0]"]
    attrs = (("capacity", "int"), ("readings", "list[int]"))
    buf = Signature("ReadingBuffer", (("capacity", "int"),), None, None, "class", attrs)
    assert _clauses("The object shall never hold more than capacity readings.", buf) == [
        "invariant len(self.readings) <= self.capacity"]
    add = Signature("add", (("value", "int"),), "None", "ReadingBuffer", "method", attrs)
    assert _clauses("After the method returns, value shall be the last element of readings.", add) == [
        "ensures len(self.readings) > 0 and self.readings[-1] == value"]
    latest = Signature("latest", (), "int", "ReadingBuffer", "method", attrs)
    assert _clauses("When the method is called on an empty buffer, it shall raise IndexError.", latest) == [
        "raises IndexError when len(self.readings) == 0"]
    assert _clauses("Raises IndexError if the buffer holds no readings.", latest) == [
        "raises IndexError when len(self.readings) == 0"]
    counts = Signature("count_by_status", (("statuses", "list[str]"),), "dict[str, int]")
    assert _clauses("Every count in the result is at least 1.", counts) == ["ensures forall x in result.values(): x >= 1"]
    assert _clauses("The keys of the result are exactly the distinct entries of statuses.", counts) == [
        "ensures set(result) == set(statuses)"]
    num = Signature("f", (("xs", "list[int]"),), "int")
    assert _clauses("The result is never negative.", num) == ["ensures result >= 0"]
    assert _clauses("The result is always negative.", num) == []  # not a reading this rule makes


def test_table_rows_take_the_target_an_earlier_row_named(tmp_path: Path) -> None:
    from evalgap.translators.from_prose import draft_spec, load_units, render_req

    (tmp_path / "m.py").write_text("def f(xs: list[int]) -> int:\n    return len(xs)\n\n"
                                   "def g(xs: list[int]) -> int:\n    return 0\n")
    (tmp_path / "r.md").write_text("## Counting\n\n| ID | Requirement |\n|---|---|\n| C-1 | `f(xs)` counts xs. |\n"
                                   "| C-2 | The result is never negative. |\n\nThe sentence after it. `g` is 0.\n")
    text = render_req(draft_spec(load_units(tmp_path / "r.md", tmp_path / "m.py"), name="t"))
    f_block = text.split("function f(", 1)[1].split("function g(", 1)[0]
    assert "C-2" in f_block and "ensures result >= 0" in f_block
    assert "The sentence after it." in text.split("function f(", 1)[0]  # a paragraph does not inherit from a table


def test_weak_spec_note_says_when_queries_timed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalgap.verifier.analysis import run as analysis_run
    from evalgap.verifier.analysis.spec_findings import AnalysisReport
    from evalgap.verifier.authoring import author
    from evalgap.verifier.findings import SpecFinding

    def timed_out(spec: object, timeout_s: float = 0.0) -> AnalysisReport:
        assert timeout_s == author.WEAK_SPEC_TIMEOUT_S
        gave_up = SpecFinding("EG309", "unknown", "unknown", "function f", (),
                              "weak-spec query (ignoring `n`): unknown (timeout)")
        return AnalysisReport("s", "<draft>", (gave_up,), timeout_s, 0.1)

    monkeypatch.setattr(analysis_run, "analyze_spec", timed_out)  # a solver that gives up (machine-independent)
    spec = 'spec s "t"\nfunction f(text: str, n: int) -> str\n  requirement R-1 "x"\n    ensures len(result) <= n\n'
    notes = author.weak_spec_notes(spec)
    assert notes == ["weak-spec witness check: no witness found, but 1 weak-spec query timed out (0.5 s each); "
                     "run `evalgap analyze` on the draft for the full check"]


def test_third_round_conditions_and_argument_ranges() -> None:
    ports = Context(Signature("collapse_ports", (("ports", "list[int]"),), "list[tuple[int, int]]"))
    assert ports.condition("any port is below 0 or above 65535") == \
        "(exists x in ports: x < 0) or (exists x in ports: x > 65535)"
    assert ports.condition("any port is negative") == "exists x in ports: x < 0"
    assert ports.condition("any dog is negative") is None  # no collection parameter named so
    init = Signature("__init__", (("low", "int"), ("high", "int")), None, "PortPool", "method", ())
    assert _clauses("Argument high: The last port; must be at least low and at most 65535.", init) == [
        "requires high >= low", "requires high <= 65535"]
    assert _clauses("Argument low: The first port; must be between 0 and 65535.", init) == [
        "requires low >= 0", "requires low <= 65535"]


def test_exceptions_the_prose_names_without_a_condition_are_allowed(tmp_path: Path) -> None:
    from evalgap.translators.from_prose import draft_spec, load_units, render_req
    from evalgap.translators.prose_draft import lint_text

    (tmp_path / "m.py").write_text(
        "class BadInput(Exception):\n    pass\n\n"
        "def parse(text: str) -> int:\n    if not text.isdigit():\n        raise ValueError(text)\n"
        "    return int(text)\n\n"
        "def size(xs: list[int]) -> int:\n    return len(xs)\n")
    (tmp_path / "r.md").write_text(
        "## `parse`\n\n- The result of `parse` is never negative.\n"
        "- It raises `ValueError` when the text is not a well-formed number.\n- It raises BadInput for odd input.\n\n"
        "## `size`\n\n- The result of `size` is never negative.\n- `size` never raises KeyError.\n")
    text = render_req(draft_spec(load_units(tmp_path / "r.md", tmp_path / "m.py"), name="t"))
    assert lint_text(text) is None, text
    parse_block = text.split("function parse(", 1)[1].split("function size(", 1)[0]
    # ValueError's condition is not formalized, so the call may raise it without refuting the other
    # requirements; BadInput is no built-in (its name may not resolve): not listed
    assert parse_block.count("may raise ValueError") == 1 and "BadInput," not in parse_block
    assert "may raise" not in text.split("function size(", 1)[1]  # "never raises KeyError" allows nothing


def test_fresh_user_round_output_guard_headings_short_rows_long_sentences(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from evalgap.translators.from_prose import MAX_RULE_SENTENCE, draft_spec, load_units, render_req
    from evalgap.verifier.cli.main import cli

    target = tmp_path / "k.py"
    target.write_text("def truncate(text: str, limit: int) -> str:\n    return text[:limit]\n\n"
                      "def up(text: str) -> str:\n    return text.upper()\n")
    prose = tmp_path / "r.md"
    prose.write_text("| ID | Requirement |\n|---|---|\n| R-1 | `truncate` returns a string of at most `limit` "
                     "characters. |\n| R-3 |\n| R-5 | `up` returns the string converted to upper case. |\n")
    before = target.read_bytes(), prose.read_bytes()
    for out in (target, prose):  # -o naming the target or the prose is refused, and nothing is replaced
        res = CliRunner().invoke(cli, ["author", str(prose), "--target", str(target), "-o", str(out)])
        assert res.exit_code == 2 and "would replace it" in res.output, res.output
    assert (target.read_bytes(), prose.read_bytes()) == before
    text = render_req(draft_spec(load_units(prose, target), name="t"))
    assert "requirement R-5" in text and "ensures result == result.upper()" in text  # not lost after a short row
    (tmp_path / "h.md").write_text("# Title\n\n## Sub\n")
    res = CliRunner().invoke(cli, ["author", str(tmp_path / "h.md"), "--target", str(target)])
    assert res.exit_code == 2 and "no requirement sentence" in res.output and "internal" not in res.output
    long = "`truncate` returns a string of at most `limit` characters" + " and limit is small" * 200 + "."
    (tmp_path / "long.md").write_text(long + "\n")
    text = render_req(draft_spec(load_units(tmp_path / "long.md", target), name="t"))
    assert f"longer than {MAX_RULE_SENTENCE} characters" in text
