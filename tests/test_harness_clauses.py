"""The harness's clause code costs CrossHair no extra branch (issue 20): a clause known to be a ``bool`` is
returned as it is (no ``bool()`` wrapper, which made CrossHair branch before its own ``prefer_true`` of a
precondition), a later ``ensures`` reads the earlier ones only where it raises, and the ``when``s of other
requirements are read lazily; a clause whose value is not known to be a ``bool`` is still judged by its truth
value."""

from __future__ import annotations

import textwrap
from pathlib import Path

from enginehelp import run_check, write_case
from evalgap.specs_lang import ast as A
from evalgap.specs_lang import check_structure, parse
from evalgap.translators.harness_writer import is_boolean
from evalgap.translators.to_icontract import build_harness
from evalgap.verifier.findings import Verdict


def _harness(body: str) -> str:
    text = 'spec t "t"\n  target: m.py\n' + textwrap.dedent(body)
    spec = parse(text, "t.req")
    check_structure(spec, text)
    return build_harness(spec, "m").source


def _cond(source: str, name: str) -> list[str]:
    """The body lines of the condition function ``name`` of the harness ``source``."""
    lines = source.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(f"def {name}("))
    out = []
    for ln in lines[i + 1:]:
        if not ln.startswith("    "):
            break
        out.append(ln.strip())
    return out


def test_boolean_clauses_are_returned_as_they_are() -> None:
    src = _harness("""
        function f(n: int, xs: list[int]) -> int
          requirement P-1 "Bounded."
            requires 0 <= n <= 100
          requirement E-1 "Small."
            ensures result <= n and forall x in xs: x <= result
    """)
    assert _cond(src, "_eg_dom_check_E_1_0") == ["return (0 <= n <= 100)"]
    assert _cond(src, "_eg_post_check_E_1_0") == ["return ((result <= n) and all(((x <= result)) for x in (xs)))"]
    assert "return bool(" not in src


def test_non_boolean_clauses_keep_their_truth_value() -> None:
    src = _harness("""
        function f(s: str, n: int) -> list[int]
          requirement P-1 "Non-empty input."
            requires s
          requirement E-1 "A non-empty result."
            ensures result
    """)
    assert _cond(src, "_eg_dom_check_E_1_0") == ["return bool(s)"]
    assert _cond(src, "_eg_post_check_E_1_0") == ["return bool(result)"]


def test_later_ensures_reads_the_earlier_ones_only_where_it_raises() -> None:
    src = _harness("""
        function first(xs: list[int]) -> int
          requirement F-1 "The first element."
            ensures len(xs) > 0
            ensures result == xs[0]
    """)
    assert _cond(src, "_eg_post_check_F_1_1") == ["try:", "return (result == xs[0])", "except Exception:",
                                                  "if not (len(xs) > 0):", "return True", "raise"]


def test_other_requirements_whens_are_read_lazily() -> None:
    src = _harness("""
        function f(a: int, b: int) -> int
          requirement R-1 "Negative a raises."
            raises ValueError when a < 0
          requirement R-2 "Negative b raises."
            raises KeyError when b < 0
          requirement E-1 "Otherwise the sum."
            raises TypeError when a == 7
            ensures result == a + b
    """)
    assert "_eg_when = [(a == 7)]" in src
    assert "elif not (((a < 0)) or ((b < 0))):" in src
    assert "_eg_other" not in src


def test_is_boolean_is_conservative() -> None:
    n, one = A.Name("n"), A.Const(1)
    assert is_boolean(A.Compare(n, (">",), (one,)))
    assert is_boolean(A.Not(n))
    assert not is_boolean(n)
    assert not is_boolean(A.BoolOp("or", (A.Compare(n, (">",), (one,)), n)))  # `x > 1 or n` may be n
    assert not is_boolean(A.Call(A.Name("all"), (n,)))  # without the writer a builtin may be shadowed


def test_non_boolean_clauses_are_still_judged_by_truth_value(tmp_path: Path) -> None:
    """A list-valued postcondition and a str-valued precondition: refuted exactly where the list is empty,
    and the precondition `s` (non-empty) still narrows the domain."""
    spec = write_case(tmp_path, """
        def f(s: str, n: int) -> list:
            return [] if n == 7 and s else [n]
    """, """\
spec t "t"
  target: {target}

function f(s: str, n: int) -> list[int]
  requirement P-1 "Non-empty input."
    requires s
  requirement E-1 "A non-empty result."
    ensures result
""")
    by = {r.id: r for r in run_check(spec, budget_s=5.0)}
    v = by["E-1"].verdicts[0]
    assert v.verdict is Verdict.REFUTED, v.reason
    assert dict(v.args)["n"] == "7" and dict(v.args)["s"] not in ("''", '""'), v.args
