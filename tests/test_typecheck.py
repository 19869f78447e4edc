"""The checker against the target's signatures: every common mistake gets its code, a span and a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.specs_lang import SpecNameError, parse, parse_file
from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang.errors import CODES
from evalgap.specs_lang.signatures import ClassSig, FunctionSig, ModuleSig, ParamSig

SPECS = Path(__file__).parent / "specs"

SIGS = ModuleSig(
    "demo_target",
    functions={"sort_list": FunctionSig("sort_list", (ParamSig("items"), ParamSig("reverse"))),
               "publish": FunctionSig("publish", (ParamSig("c"), ParamSig("msg"))),
               "pop_last": FunctionSig("pop_last", (ParamSig("xs"), ParamSig("code"), ParamSig("tag")))},
    classes={"Account": ClassSig("Account", FunctionSig("Account"),
                                 {"deposit": FunctionSig("deposit", (ParamSig("amount"),)),
                                  "withdraw": FunctionSig("withdraw", (ParamSig("amount"),))},
                                 frozenset({"balance"})),
             "Client": ClassSig("Client", FunctionSig("Client"), {"send": FunctionSig("send", (ParamSig("msg"),))})},
    names=frozenset({"time"}),
)


def _diags(path: Path, sigs: ModuleSig | None = SIGS) -> list[tuple[str, int, str, str | None]]:
    spec = parse_file(path)
    with pytest.raises(SpecNameError) as info:
        check_spec(spec, path.read_text(), sigs)
    return [(d.code, d.span.line, d.message, d.hint) for d in info.value.diagnostics]


def test_all_mistakes_of_a_file_in_one_run() -> None:
    got = _diags(SPECS / "mistakes.req")
    codes = [(c, line) for c, line, _, _ in got]
    assert codes == [("EG212", 6), ("EG216", 8), ("EG216", 10), ("EG215", 12), ("EG204", 12), ("EG217", 14),
                     ("EG211", 16), ("EG213", 18), ("EG214", 22), ("EG213", 27), ("EG207", 29), ("EG202", 32)]
    hints = {c: h for c, _, _, h in got}
    assert hints["EG212"] == "did you mean `items`?"
    assert hints["EG211"] == "did you mean `sort_list`?"
    assert hints["EG214"] == "did you mean `balance`?"
    assert hints["EG207"] == "did you mean `ValueError`?"
    messages = [m for _, _, m, _ in got]
    assert "sort_list(items, reverse)" in messages[0]
    assert messages[1:3] == ["`len` of a bool", "comparing list[int] to int is always False"]


def test_rendering_has_file_line_col_and_caret() -> None:
    spec = parse_file(SPECS / "mistakes.req")
    with pytest.raises(SpecNameError) as info:
        check_spec(spec, (SPECS / "mistakes.req").read_text(), SIGS)
    text = info.value.render()
    assert "mistakes.req:6:20: error EG212:" in text
    assert "\n                       ^^^^^^^^^^^^^\n" in text


def test_the_sample_spec_is_clean() -> None:
    spec = parse_file(SPECS / "all_constructs.req")
    check_spec(spec, None, SIGS)


@pytest.mark.parametrize("clause, code", [
    ("ensures result == [1] < 3", "EG216"),
    ("ensures xs + 1 == result", "EG216"),
    ("ensures 3 in result", "EG216"),
    ("ensures print(xs) == result", "EG219"),
    ("ensures resutl == 1", "EG207"),
    ("invariant len(xs) > 0", "EG218"),
    ("len(xs) > 0", "EG218"),
    ("raises ValueError when result > 0", "EG204"),
    ("ensures result == sort_list(items=xs, revers=True)", "EG213"),
    ("ensures result == sort_list(xs)", "EG213"),
    ("ensures exists i, j in range(len(xs)): xs[i] == xs[j]", "EG216"),  # an int cannot be unpacked
    ("ensures forall a, b in code: a == b", "EG216"),  # nor a one-character string
])
def test_single_mistakes(clause: str, code: str) -> None:
    text = f'function pop_last(xs: list[int], code: str, tag: str) -> int\n  requirement R-1 "p"\n    {clause}\n'
    spec = parse(text, "x.req")
    with pytest.raises(SpecNameError) as info:
        check_spec(spec, text, SIGS)
    assert code in [d.code for d in info.value.diagnostics], info.value.render()


def test_unpacking_pairs_is_not_flagged() -> None:
    text = ('function pop_last(xs: list[int], code: str, tag: str) -> int\n  requirement R-1 "p"\n'
            '    ensures forall i, x in enumerate(xs): xs[i] == x\n'
            '    ensures exists i in range(len(xs)): exists j in range(len(xs)): xs[i] >= xs[j]\n')
    check_spec(parse(text, "x.req"), text, SIGS)  # raises SpecNameError on any diagnostic


def test_structural_rules() -> None:
    text = ('let a = 1\nlet a = 2\nrequirement R-1 ""\n  informal omission "x"\n  example 1 == 1\n'
            'requirement R-1 "again"\n  scenario (n: int):\n    x = n\n')
    with pytest.raises(SpecNameError) as info:
        check_spec(parse(text, "s.req"), text, None)
    assert {d.code for d in info.value.diagnostics} == {"EG221", "EG203", "EG205", "EG201", "EG209"}


def test_every_code_is_documented() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "language.md").read_text()
    for code in CODES:
        assert f"| {code} |" in doc, code


def test_signatures_from_the_sandboxed_provider() -> None:
    from evalgap.verifier.project.signatures import target_signatures
    from evalgap.verifier.project.targets import resolve_target

    sigs = target_signatures(resolve_target("demo_target.py", SPECS))
    assert [p.name for p in sigs.functions["sort_list"].params] == ["items", "reverse"]
    assert "balance" in sigs.classes["Account"].attributes
    assert set(sigs.classes["Account"].methods) == {"deposit", "withdraw"}
    assert ModuleSig.from_json(sigs.to_json()) == sigs
