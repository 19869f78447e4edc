"""Bounded proofs by exhaustion (issue 20): the ``enumeration`` engine calls the target on every input of a
finite domain. A target wrong only outside the bounds is ``verified`` with its bounds in every format (never an
unbounded proof); a target that notices it is being enumerated (a call counter, the clock) does not earn
``verified``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evalgap
from evalgap.specs_lang import ast as A
from evalgap.verifier.engines import domains
from evalgap.verifier.findings import Verdict
from evalgap.verifier.report import formats
from test_bounds_report import _evidence_column

TARGET = '''\
import os
import time

_seen = [0]


def inside(x):
    return x if x <= 255 else -1          # wrong only outside the spec's 0..255


def listed(x):
    _seen[0] += 1                         # a call counter in a list: right once it has run a few times
    return x if _seen[0] > 3 or x != 200 else -1


def attr(x):
    attr.calls = getattr(attr, "calls", 0) + 1   # a counter on the function itself
    return x if attr.calls > 3 or x != 200 else -1


def timed(x):
    if time.process_time() > 0.3:         # "the process has run a while: this is an enumeration"
        return x
    return x if x != 200 else -1


def cpu(x):
    if os.times().user > 0.05:            # the process's own CPU time as the clock
        return x
    return x if x != 200 else -1


def word(s):
    return s.upper() if len(s) <= 3 else ""
'''

SPEC = '''\
spec enum "bounded proofs by exhaustion"
  target: enum_target.py

function inside(x: int in 0..255) -> int
  requirement OB-1 "Returns x."
    ensures result == x

function listed(x: int in 0..255) -> int
  requirement CL-1 "Returns x."
    ensures result == x

function attr(x: int in 0..255) -> int
  requirement CA-1 "Returns x."
    ensures result == x

function timed(x: int in 0..255) -> int
  requirement TM-1 "Returns x."
    ensures result == x

function cpu(x: int in 0..255) -> int
  requirement CP-1 "Returns x."
    ensures result == x

function word(s: str chars "aB-" len 0..3) -> str
  requirement WD-1 "Upper-cases s."
    ensures result == s.upper()
'''


def _t(name: str, **kw: object) -> A.TypeRef:
    return A.TypeRef(name, **kw)  # type: ignore[arg-type]


def test_domain_sizes_match_the_values() -> None:
    """The engine's count (``size``) and the worker's list (``values``) agree, without repeats."""
    int8 = _t("int", range=A.Range(-128, 127))
    cases = [
        (int8, 256),
        (_t("str", length=A.Range(0, 3), alphabet=A.Alphabet("chars", "ab-")), 1 + 3 + 9 + 27),
        (_t("list", args=(_t("bool"),), length=A.Range(1, 3)), 2 + 4 + 8),
        (_t("Optional", args=(_t("int", range=A.Range(0, 9)),)), 11),
        (_t("tuple", args=(_t("bool"), _t("int", range=A.Range(1, 3)))), 6),
    ]
    for t, n in cases:
        d = domains.domain_of(t)
        assert d is not None, t
        vals = domains.values(d)
        assert domains.size(d) == len(vals) == n
        assert len({json.dumps(v) for v in vals}) == n
    assert domains.domain_of(_t("int")) is None  # no range: not finite
    assert domains.domain_of(_t("str", length=A.Range(0, 3))) is None  # no alphabet: not finite
    assert domains.domain_of(_t("list", args=(int8,))) is None  # no length


@pytest.fixture(scope="module")
def enum_report(tmp_path_factory: pytest.TempPathFactory) -> object:
    folder = tmp_path_factory.mktemp("enum")
    (folder / "enum_target.py").write_text(TARGET, encoding="utf-8")
    spec = folder / "enum.req"
    spec.write_text(SPEC, encoding="utf-8")
    settings = evalgap.Settings(engines=("hypothesis",), jobs=1, cache=False, analysis=False, budget_s=3.0,
                                hypothesis_examples=20)
    return evalgap.check(spec, settings=settings)


def _req(report: object, rid: str) -> object:
    return next(r for r in report.requirements if r.id == rid)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.adversarial
def test_wrong_outside_the_bounds_is_verified_only_with_its_bounds(enum_report: object) -> None:
    """Attack: ``inside`` is wrong for every x > 255, outside the spec's domain. Promise: ``verified`` by the
    enumeration of all 256 inputs, always with the bound beside it, in every format."""
    for rid, n in (("OB-1", 256), ("WD-1", 40)):
        r = _req(enum_report, rid)
        assert r.verdict is Verdict.VERIFIED, r.verdicts  # type: ignore[attr-defined]
        assert [v.engine for v in r.verdicts] == ["enumeration"]  # type: ignore[attr-defined]
        bound = f"exhaustive enumeration: all {n} inputs of the narrowed domain"
        assert bound in r.bounds and "bounded-proof" in r.flags  # type: ignore[attr-defined]
    shown = "x: int in 0..255"
    for name in ("text", "json", "sarif", "junit", "markdown", "html"):
        fmt = formats.get(name)
        assert fmt is not None
        raw = fmt.render(enum_report)  # type: ignore[arg-type]
        out = _evidence_column(raw) if name == "text" else " ".join(raw.split())
        assert "exhaustive enumeration: all 256 inputs" in out and shown in out, f"{name}:\n{out[:2000]}"
    data = json.loads(formats.get("json").render(enum_report))  # type: ignore[union-attr, arg-type]
    ob = next(r for r in data["requirements"] if r["id"] == "OB-1")
    assert ob["verdict"] == "verified" and ob["bounds"] and "bounded-proof" in ob["flags"]


@pytest.mark.slow
@pytest.mark.adversarial
@pytest.mark.parametrize("rid", ["CL-1", "CA-1", "TM-1", "CP-1"])
def test_a_target_that_notices_the_enumeration_is_not_verified(enum_report: object, rid: str) -> None:
    """Attack: the function is wrong for x == 200 only while it has run few times or for a short time (a
    counter in a list or on the function, ``time.process_time``, ``os.times``): an enumeration that reaches 200
    late sees it right. Promise: refuted (200 came early) or not passing, never ``verified``."""
    r = _req(enum_report, rid)
    assert r.verdict is not Verdict.VERIFIED, r.verdicts  # type: ignore[attr-defined]
    if r.verdict is not Verdict.REFUTED:  # type: ignore[attr-defined]
        assert r.verdict is Verdict.UNKNOWN, r.verdicts  # type: ignore[attr-defined]
        assert any(v.reason.startswith("nondeterminism") for v in r.verdicts), r.verdicts  # type: ignore[attr-defined]


def test_budget_use_names_each_engine() -> None:
    """Per requirement, how much of its budget each engine used (engines run side by side)."""
    from evalgap.verifier.findings import Budget, EngineVerdict, RequirementResult
    from evalgap.verifier.report.gap import budget_use

    r = RequirementResult("B-1", "p", "a:1:1", "formal", verdict=Verdict.NO_COUNTEREXAMPLE, verdicts=(
        EngineVerdict("crosshair", Verdict.NO_COUNTEREXAMPLE, "r", Budget(seconds=3.0, used_s=2.14, paths=41),
                      elapsed_s=8.0),
        EngineVerdict("hypothesis", Verdict.NO_COUNTEREXAMPLE, "r", Budget(examples=200), elapsed_s=3.5),
        EngineVerdict("enumeration", Verdict.NO_COUNTEREXAMPLE, "r", Budget(seconds=3.0, used_s=3.0, examples=900),
                      elapsed_s=3.2)))
    assert budget_use(r) == ("crosshair 2.1 of 3 s, 41 paths (8.0 s wall); hypothesis 200 examples (3.5 s wall); "
                             "enumeration 900 inputs (3.2 s wall)")


def test_process_cpu_time_counts_as_a_clock_read() -> None:
    """``os.times()`` and ``resource.getrusage()`` tell a long enumeration from a short run: clock reads."""
    import ast

    from evalgap.verifier.analysis.gaming_check import _entropy_reads

    src = "import os\nimport resource\ndef f():\n    return os.times().user + resource.getrusage(0).ru_utime\n"
    assert [w for _, w in _entropy_reads(ast.parse(src))] == ["os.times()", "resource.getrusage()"]
    assert _entropy_reads(ast.parse("import os\ndef f():\n    return os.getcwd()\n")) == []
