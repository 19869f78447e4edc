"""A target parameter named `result` or `OLD` (names icontract reserves in postconditions) is checked: the harness
renames it, preconditions and `old(...)` read the parameter, a bare `result` in `ensures` is the return value
(before: every requirement of the function was `unknown (import error: duplicate argument 'result')`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.specs_lang import parse
from evalgap.translators.reserved_params import rename_reserved_params, renaming
from evalgap.verifier.findings import Verdict

from enginehelp import run_check, write_case

_SPEC = """\
spec s
  target: {target}

function keep(result: int, OLD: int) -> int
  requirement K-0 "the argument is below 1000"
    requires result < 1000
  requirement K-1 "keep returns its first argument, unchanged"
    ensures result == old(result)
  requirement K-2 "keep never returns less than OLD when it is smaller than the first argument"
    ensures OLD < old(result) ==> result >= OLD

class Box
  method put(result: int) -> int
    requirement B-1 "put returns its argument"
      ensures result == old(result)
"""


def test_renaming_keeps_other_names_free() -> None:
    assert renaming(["a", "result", "result_"]) == {"result": "result__"}
    assert renaming(["OLD", "x"]) == {"OLD": "OLD_"}
    assert renaming(["x"]) == {}


def test_the_bare_result_of_a_postcondition_stays_the_return_value() -> None:
    spec = rename_reserved_params(parse(_SPEC.format(target="t.py"), "s.req"))
    keep = spec.functions[0]
    assert [p.name for p in keep.params] == ["result_", "OLD_"]
    from evalgap.specs_lang.lower import free_names

    k0, k1, k2 = (r.clauses[0] for r in keep.requirements)
    assert free_names(k0) == {"result_"}
    assert free_names(k1) == {"result", "result_"}
    assert free_names(k2) == {"result", "result_", "OLD_"}
    assert [p.name for p in spec.classes[0].methods[0].params] == ["result_"]
    plain = parse(_SPEC.format(target="t.py").replace("result: int, OLD: int", "a: int, b: int")
                  .replace("requires result", "requires a").replace("old(result)", "old(a)")
                  .replace("OLD", "b").replace("put(result: int)", "put(a: int)"), "s.req")
    assert rename_reserved_params(plain) is plain


@pytest.mark.parametrize("body, expected", [
    ("return result", Verdict.VERIFIED),
    ("return result + (result > 3)", Verdict.REFUTED),
])
@pytest.mark.parametrize("engine", ["crosshair", "hypothesis"])
def test_a_parameter_named_result_is_checked(tmp_path: Path, body: str, expected: Verdict, engine: str) -> None:
    target = f"""\
    def keep(result: int, OLD: int) -> int:
        {body}


    class Box:
        def put(self, result: int) -> int:
            return result
    """
    results = {r.id: r for r in run_check(write_case(tmp_path, target, _SPEC), budget_s=3.0, engines=(engine,))}
    want = expected if engine == "crosshair" or expected is Verdict.REFUTED else Verdict.NO_COUNTEREXAMPLE
    assert results["K-1"].verdict is want, results["K-1"].verdicts
    assert results["B-1"].verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE), results["B-1"].verdicts
    assert results["K-2"].verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE), results["K-2"].verdicts
    if expected is Verdict.REFUTED:
        cex = results["K-1"].counterexample
        assert cex is not None and cex.startswith("keep(") and int(cex[5:].split(",")[0]) > 3, cex


def test_the_renamed_parameter_takes_no_name_the_spec_reads(tmp_path: Path) -> None:
    """Red team: with a target constant `result_` that the spec reads, renaming the parameter `result` to
    `result_` made the clause read the argument (`2x == x + x`: verified). The new name avoids every name of
    the spec."""
    spec = ('spec s\n  target: {target}\n\nfunction bump(result: int) -> int\n'
            '  requirement B-1 "adds the step"\n    ensures result == old(result) + result_\n')
    assert renaming(["result"], {"result_", "result__"}) == {"result": "result___"}
    wrong = "result_ = 5\n\ndef bump(result):\n    return 2 * result\n"
    [res] = run_check(write_case(tmp_path / "wrong", wrong, spec), budget_s=3.0)
    assert res.verdict is Verdict.REFUTED, res.verdicts
    right = "result_ = 5\n\ndef bump(result):\n    return result + result_\n"
    [res] = run_check(write_case(tmp_path / "right", right, spec), budget_s=3.0)
    assert res.verdict is Verdict.VERIFIED, res.verdicts
