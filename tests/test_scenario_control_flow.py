"""`for` and `if` statements in scenarios (issue 23): parsed, formatted, checked (an `expect` inside a block
counts; a `for` over a number is EG216) and compiled into the scenario's check function."""

from __future__ import annotations

import sys
import types

from evalgap.specs_lang import SpecNameError, parse
from evalgap.specs_lang import ast as A
from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang.diagnostics import SCENARIO_NO_EXPECT, TYPE_MISMATCH
from evalgap.specs_lang.format import format_spec
from evalgap.translators import build_harness

SPEC = """\
spec loops "for and if in scenarios"
  target: box.py

requirement SB-1 "After any sequence of adds the items are sorted."
  scenario (xs: list[int] len 0..4):
    s = SortedBox()
    for x in xs:
      s.add(x)
      if x > 100:
        expect x in s.items()
      else:
        expect s.items() == sorted(s.items())
    expect s.items() == sorted(xs)
"""

GOOD = """\
class SortedBox:
    def __init__(self):
        self._xs = []

    def add(self, x):
        self._xs = sorted(self._xs + [x])

    def items(self):
        return list(self._xs)
"""

BAD = GOOD.replace("self._xs = sorted(self._xs + [x])", "self._xs = self._xs + [x] if len(self._xs) >= 2 else sorted(self._xs + [x])")


def _codes(text: str) -> list[str]:
    try:
        check_spec(parse(text))
    except SpecNameError as exc:
        return [d.code for d in exc.diagnostics]
    return []


def test_parse_format_check() -> None:
    spec = parse(SPEC)
    body = spec.requirements[0].clauses[0].body  # type: ignore[union-attr]
    loop = body[1]
    assert isinstance(loop, A.For) and loop.targets == ("x",) and isinstance(loop.body[1], A.If)
    assert len(loop.body[1].orelse) == 1
    assert format_spec(spec, SPEC) == SPEC and parse(format_spec(spec, SPEC)) == spec
    assert _codes(SPEC) == []
    only_in_loop = 'requirement R "p"\n  scenario (xs: list[int]):\n    for x in xs:\n      expect x == x\n'
    assert _codes(only_in_loop) == []
    assert _codes('requirement R "p"\n  scenario (n: int):\n    for x in n:\n      expect x == x\n') == [TYPE_MISMATCH]
    assert _codes('requirement R "p"\n  scenario (xs: list[int]):\n    for x in xs:\n      y = x\n') == [
        SCENARIO_NO_EXPECT]


def _check(target_src: str, xs: list[int]) -> int:
    mod = types.ModuleType("box_cf_t")
    exec(compile(target_src, "box_cf_t.py", "exec"), mod.__dict__)  # noqa: S102 - our own fixture
    sys.modules["box_cf_t"] = mod
    try:
        h = build_harness(parse(SPEC), "box_cf_t", "box_cf_h")
        ns: dict[str, object] = {"__name__": "box_cf_h"}
        exec(compile(h.source, "box_cf_h.py", "exec"), ns)  # noqa: S102 - generated harness of our own spec
        fn = ns[h.obligation("SB-1").function]  # type: ignore[index]
        return fn.__wrapped__(xs)  # type: ignore[attr-defined, no-any-return]
    finally:
        del sys.modules["box_cf_t"]


def test_harness_runs_the_blocks() -> None:
    assert _check(GOOD, [3, 1, 200, 2]) == 0
    assert _check(BAD, [1, 2]) == 0  # the bug needs a third add
    assert _check(BAD, [3, 2, 1]) == 2  # the else-branch expect (index 2) fails at the third add
    assert _check(BAD, [5, 6, 101]) == 0 and _check(BAD, [5, 6, 1]) == 2
