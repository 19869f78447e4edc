"""The allow-listed standard library in clauses (issue 23): `re`, `bisect`, `string`, `itertools`,
`functools.reduce`, `collections.Counter`, `operator`, `unicodedata` and datetime arithmetic are checked by the
checker (EG229 outside the list, EG219 for clock reads), run in the harness, and are `unknown` (EG308) for the
Z3 analysis, never a wrong finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from enginehelp import run_check, write_case
from evalgap.specs_lang import SpecNameError, parse
from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang.diagnostics import IMPURE_CALL, NOT_IN_FRAGMENT, STDLIB_NOT_ALLOWED
from evalgap.verifier.cli.main import cli
from evalgap.verifier.findings import Verdict

TARGET = '''\
import re
import unicodedata


def slugify(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def bad_slugify(text: str) -> str:
    return text.lower().replace(" ", "-")


def insert_pos(xs: list[int], x: int) -> int:
    return sum(1 for y in xs if y < x)
'''

SPEC = '''\
spec slug "stdlib in clauses"
  target: {target}

function slugify(text: str) -> str
  requirement SL-1 "Lowercase letters, digits and single inner hyphens."
    ensures re.fullmatch("([a-z0-9]+(-[a-z0-9]+)*)?", result) is not None

function bad_slugify(text: str) -> str
  requirement SL-2 "Only lowercase letters, digits and hyphens."
    ensures all(c in string.ascii_lowercase + string.digits + "-" for c in result)

function insert_pos(xs: list[int] len 0..6, x: int) -> int
  requirement BI-1 "The list is sorted."
    requires xs == sorted(xs)
  requirement BI-2 "The position is where bisect_left inserts x."
    ensures result == bisect.bisect_left(xs, x) == functools.reduce(operator.add, [1 for y in xs if y < x], 0)
  requirement BI-3 "Counter, unicodedata and itertools read as in Python."
    ensures collections.Counter(xs)[x] >= 0 and unicodedata.category("a") == "Ll" and len(list(itertools.pairwise(xs))) == max(len(xs) - 1, 0)
'''


def _codes(text: str) -> list[str]:
    try:
        check_spec(parse(text))
    except SpecNameError as exc:
        return [d.code for d in exc.diagnostics]
    return []


def test_checker_allows_the_list_and_nothing_else() -> None:
    assert _codes(SPEC.format(target="t.py")) == []
    head = 'function f(xs: list[int], d: int) -> int\n  requirement R "p"\n    ensures '
    assert _codes(head + "bisect.insort(xs, 1) is None\n") == [STDLIB_NOT_ALLOWED]
    assert _codes(head + "re.purge() is None\n") == [STDLIB_NOT_ALLOWED]
    assert _codes(head + "datetime.datetime.now().year > d\n") == [IMPURE_CALL]
    assert _codes(head + "(datetime.date(2020, 1, 1) + datetime.timedelta(days=d)).year >= 2020\n") == []
    assert _codes(head + "result == len(string.digits) and len(re.split(',', 'a,b')) == 2\n") == []


@pytest.mark.slow
def test_engines_run_the_clauses(tmp_path: Path) -> None:
    spec = write_case(tmp_path / "s", TARGET, SPEC, name="slug_t")
    res = {r.id: r for r in run_check(spec, engines=("hypothesis",))}
    assert res["SL-2"].verdict is Verdict.REFUTED
    assert res["SL-1"].verdict is Verdict.NO_COUNTEREXAMPLE
    assert res["BI-2"].verdict is Verdict.NO_COUNTEREXAMPLE and res["BI-3"].verdict is Verdict.NO_COUNTEREXAMPLE
    rep = res["SL-2"].verdicts[0].reproducer
    assert rep is not None and "import string" in rep


def test_z3_analysis_says_unknown(tmp_path: Path) -> None:
    spec = write_case(tmp_path / "z", TARGET, SPEC, name="slug_z")
    out = CliRunner().invoke(cli, ["analyze", str(spec)]).output
    for rid, name in (("BI-2", "bisect"), ("BI-3", "collections")):
        assert f"{NOT_IN_FRAGMENT} unknown unknown" in out and f"{rid}: unknown (not in the Z3 fragment: name `{name}`)" in out
    # `re.fullmatch` with a pattern of the documented subset is in the fragment (translators/to_z3/regex.py):
    # SL-1 is analysed, and the empty slug meets it (a true weak-spec witness)
    assert "SL-1: unknown" not in out
    assert "EG300 info    consistent   [function slugify]" in out
    assert "EG307 warning witness      [function slugify]" in out and "may return `''`" in out
