"""Length splitting for CrossHair (issue 20, :mod:`evalgap.verifier.engines.shapes`): a requirement whose list
parameters have small length ranges is checked once per length, each list a concrete list of symbolic
elements. A loop-based function CrossHair cannot exhaust over a symbolic length is proved for every length; a
bug at one length only is refuted there and replayed; a target that rewrites the split at import time (so that
only the empty list is explored) does not earn ``verified``."""

from __future__ import annotations

from pathlib import Path

import pytest

import evalgap
from evalgap.specs_lang import ast as A
from evalgap.verifier.engines import shapes
from evalgap.verifier.findings import RequirementResult, Verdict

TARGET = '''\
def drop(array, n):
    out = []
    for i, x in enumerate(array):
        if i >= n:
            out.append(x)
    return out


def drop_bad(array, n):
    if len(array) == 3 and array[2] == 77 and n == 0:
        return array[:2]                  # wrong only for three elements ending in 77
    return drop(array, n)
'''

HOSTILE = '''\
import gc

for _f in gc.get_objects():               # find the worker's shaped gen_args and make every run the empty list
    if callable(_f) and getattr(_f, "__name__", "") == "gen_args" and getattr(_f, "__closure__", None):
        for _c in _f.__closure__:
            v = _c.cell_contents
            if isinstance(v, tuple) and v and isinstance(v[0], tuple) and len(v[0]) == 2:
                _c.cell_contents = tuple((name, 0) for name, _ in v)


def drop_bad(array, n):
    if len(array) == 3 and array[2] == 77 and n == 0:
        return array[:2]
    out = []
    for i, x in enumerate(array):
        if i >= n:
            out.append(x)
    return out
'''

WRONG_DROP = '''

def drop_bad(array, n):
    if len(array) == 3 and array[2] == 77 and n == 0:
        return array[:2]
    return array[n:]
'''

#: red team, 2026-12-02: each earned CrossHair's `verified` on wrong code before the fixes named beside it
GET_ARGS_SWAP = '''\
import types, typing

_g = typing.get_args
typing._orig = types.FunctionType(_g.__code__, _g.__globals__, "get_args", _g.__defaults__, _g.__closure__)


def _fake(tp):                              # list[int] reads as list[bool]: the elements are only 0 and 1
    r = typing._orig(tp)
    return (bool,) if r == (int,) and getattr(tp, "__origin__", None) is list else r


_g.__code__ = _fake.__code__                # same function object, other code (the snapshot compared identity)
''' + WRONG_DROP

PROXY_SWAP = '''\
import sys, types

_c = vars(sys)["mod" + "ules"].get("".join(("cross", "hair", ".core")))
if _c is not None:
    _p = getattr(_c, "proxy_for_type")
    _c._copy = types.FunctionType(_p.__code__, _p.__globals__, "p", _p.__defaults__, _p.__closure__)

    def _fake(typ, varname, allow_subtypes=False):
        return _c._copy(bool if typ is int else typ, varname, allow_subtypes)

    setattr(_p, "__co" + "de__", _fake.__code__)


def inc(n):
    return 0 if n == 77 else n + 1
'''

LENGTH_HISTORY = '''\
_seen = set()


def drop_bad(array, n):                     # wrong only after calls of two lengths: one process per length
    _seen.add(len(array))
    if len(_seen) > 1 and len(array) == 3 and array[2] == 77:
        return []
    return array[n:]
'''

#: a second red-team pass, 2026-12-02: CrossHair's type registry edited (every int made 0), a code swap undone
#: through a replaced clock before the final tamper check, and state that depends on the order of the lengths
REGISTRY_EDIT = '''\
import sys

for _m in list(sys.modules.values()):
    _reg = getattr(_m, "_SIMPLE_PROXIES", None)
    if isinstance(_reg, dict) and int in _reg:
        _reg[int] = lambda factory, *args: 0


def drop(array, n):
    if array == [13, -77, 91]:
        return []
    return array[n:]
'''

SWAP_AND_RESTORE = '''\
import sys
import time
import types

_core = None
for _m in list(sys.modules.values()):
    if getattr(_m, "_SIMPLE_PROXIES", None) is not None and hasattr(_m, "proxy_for_type"):
        _core = _m
_attr = "__%s__" % "code"
_real_clock = time.process_time

if _core is not None:
    _p = _core.proxy_for_type
    _saved = getattr(_p, _attr)
    _core._eg_copy = types.FunctionType(_saved, _p.__globals__, "p", _p.__defaults__, _p.__closure__)

    def _fake(typ, varname, allow_subtypes=False):
        if typ is int and varname.startswith("array_"):
            typ = bool
        return _eg_copy(typ, varname, allow_subtypes)

    setattr(_p, _attr, getattr(_fake, _attr))

    _ticks = iter(range(12))  # the worker reads the clock 3 times per shape (4 shapes), then once more

    def _clock():
        for _ in _ticks:
            break
        else:  # the last reading: analysis over, put everything back before the tamper check
            setattr(_p, _attr, _saved)
            time.process_time = _real_clock
        return _real_clock()

    time.process_time = _clock


def drop(array, n):
    if len(array) == 3 and array[2] == 77:
        return []
    return array[n:]
'''

LENGTH_ORDER = '''\
class _Memo:
    pass


_memo = _Memo()
_memo.short = False


def drop(array, n):
    if len(array) < 3:
        _memo.short = True
    elif not _memo.short and array == [13, -77, 91]:
        return []
    return array[n:]
'''

SCALAR_SPEC = '''\
spec scalar "no split"
  target: {target}

function {fn}(n: int in 0..1000000) -> int
  requirement {rid} "Adds one."
    ensures result == n + 1
'''

SPEC = '''\
spec split "length splitting"
  target: {target}

function {fn}(array: list[int in -128..127] len 0..3, n: int in 0..255) -> list[int]
  requirement {rid} "Drops the first n elements."
    ensures result == array[n:]
'''


def _check(tmp_path: Path, source: str, fn: str, rid: str, spec_text: str = SPEC) -> RequirementResult:
    (tmp_path / "split_target.py").write_text(source)
    spec = tmp_path / f"{fn}.req"
    spec.write_text(spec_text.format(target="split_target.py", fn=fn, rid=rid))
    report = evalgap.check(spec, settings=evalgap.Settings(budget_s=4, engines=("crosshair",), cache=False,
                                                           analysis=False))
    (result,) = report.requirements
    assert isinstance(result, RequirementResult)
    return result


def _t(name: str, *args: A.TypeRef, length: tuple[int, int] | None = None) -> A.TypeRef:
    rng = None if length is None else A.Range(length[0], length[1])
    return A.TypeRef(name, tuple(args), length=rng)


class _Ob:
    def __init__(self, params: tuple[str, ...]) -> None:
        self.kind, self.model, self.explore = "function", None, None
        self.params = tuple((p, "") for p in params)


class _Job:
    def __init__(self, *params: A.Param) -> None:
        self.ob = _Ob(tuple(p.name for p in params))
        self.req = None
        self.owner = A.FunctionDecl("f", params, None, ())


def _p(name: str, t: A.TypeRef) -> A.Param:
    return A.Param(name, t)


def test_shapes_are_every_length_of_the_spec_range_shortest_first() -> None:
    i8 = _t("int")
    job = _Job(_p("a", _t("list", i8, length=(0, 2))), _p("n", i8), _p("b", _t("list", i8, length=(1, 2))))
    got = shapes.shapes_of(job)  # type: ignore[arg-type]
    assert got == [(("a", 0), ("b", 1)), (("a", 0), ("b", 2)), (("a", 1), ("b", 1)), (("a", 1), ("b", 2)),
                   (("a", 2), ("b", 1)), (("a", 2), ("b", 2))]
    assert shapes.describe(got[1]) == "len(a) == 0, len(b) == 2"


@pytest.mark.parametrize("params", [
    (("n", _t("int")),),                                     # no list
    (("a", _t("list", _t("int"))),),                         # no length range
    (("a", _t("list", _t("int"), length=(0, 7))),),          # longer than MAX_LENGTH
    (("a", _t("list", _t("int"), length=(0, 4))), ("b", _t("list", _t("int"), length=(0, 4)))),  # 25 shapes
])
def test_no_split_without_a_small_length_range(params: tuple[tuple[str, A.TypeRef], ...]) -> None:
    job = _Job(*(_p(n, t) for n, t in params))
    assert shapes.shapes_of(job) is None  # type: ignore[arg-type]


def test_a_loop_over_the_list_is_proved_for_every_length(tmp_path: Path) -> None:
    r = _check(tmp_path, TARGET, "drop", "DR-1")
    (v,) = r.verdicts
    assert v.verdict is Verdict.VERIFIED, v.reason
    assert "for each length of array separately (4 runs" in v.reason
    assert "len(array) == 3" in v.reason
    assert len(v.budget.hash_seeds) == 2 and (v.budget.paths or 0) >= 4


def test_a_bug_at_one_length_is_refuted_and_replayed(tmp_path: Path) -> None:
    r = _check(tmp_path, TARGET, "drop_bad", "DB-1")
    (v,) = r.verdicts
    assert v.verdict is Verdict.REFUTED, v.reason
    assert "len(array) == 3" in v.reason
    args = dict(v.args or ())
    assert args["array"].endswith("77]") and args["array"].count(",") == 2 and args["n"] == "0", v.args


@pytest.mark.adversarial
def test_a_target_that_rewrites_the_split_is_not_verified(tmp_path: Path) -> None:
    r = _check(tmp_path, HOSTILE, "drop_bad", "DH-1")
    (v,) = [v for v in r.verdicts if v.engine == "crosshair"]
    # it finds the split's functions with gc.get_objects(), which the guard now blocks (before: the rewrite
    # itself was seen as tampering)
    assert v.verdict is Verdict.UNKNOWN, v.reason
    assert ((v.reason.startswith("tampered") and "crosshair.core.gen_args" in v.reason)
            or v.reason.startswith("blocked side effect") and "gc.get_objects" in v.reason), v.reason
    assert r.verdict is not Verdict.VERIFIED


@pytest.mark.adversarial
@pytest.mark.parametrize("source, fn, spec_text, expected", [
    (GET_ARGS_SWAP, "drop_bad", SPEC, "typing.get_args rewritten"),
    (PROXY_SWAP, "inc", SCALAR_SPEC, "crosshair.core.proxy_for_type rewritten"),
    (LENGTH_HISTORY, "drop_bad", SPEC, "len(array) == 3"),
    (REGISTRY_EDIT.replace("def drop(", "def drop_bad("), "drop_bad", SPEC, "_SIMPLE_PROXIES (its entries)"),
    # the swap is stopped and reported by the guard when it is made (before: seen right after the analysis)
    (SWAP_AND_RESTORE.replace("def drop(", "def drop_bad("), "drop_bad", SPEC,
     "crosshair.core.proxy_for_type rewritten (its __code__ assigned)"),
    (LENGTH_ORDER.replace("def drop(", "def drop_bad("), "drop_bad", SPEC, "order of the list lengths"),
], ids=["get_args-code-swap", "proxy_for_type-code-swap", "length-history", "registry-edit", "swap-and-restore",
        "length-order"])
def test_hostile_targets_found_by_the_red_team_are_not_verified(tmp_path: Path, source: str, fn: str,
                                                                spec_text: str, expected: str) -> None:
    r = _check(tmp_path, source, fn, "HX-1", spec_text)
    (v,) = [v for v in r.verdicts if v.engine == "crosshair"]
    # the code swaps are tampering; the length history shows in the one process that runs every length in
    # turn (its counterexample then does not reproduce in a fresh process: `unknown (not reproduced)`); the
    # order trick is refuted by the confirming run, which takes the lengths longest first
    assert v.verdict is (Verdict.REFUTED if source.startswith("class _Memo") else Verdict.UNKNOWN)
    assert expected in v.reason, v.reason
    assert r.verdict is not Verdict.VERIFIED


def test_a_budget_too_small_to_share_is_not_split(tmp_path: Path) -> None:
    """Twelve shapes at a 3 s budget would leave each 0.25 s (and its worker's start-up): one unsplit run."""
    spec = SPEC.replace("function {fn}(array: list[int in -128..127] len 0..3, n: int in 0..255)",
                        "function {fn}(array: list[int in -128..127] len 0..3, other: list[int] len 0..2, "
                        "n: int in 0..255)")
    src = TARGET.replace("def drop(array, n):", "def drop(array, other, n):")
    r = _check(tmp_path, src, "drop", "DR-2", spec.replace("array[n:]", "array[n:] and len(other) >= 0"))
    (v,) = r.verdicts
    assert "for each length" not in v.reason and "one run per length" not in v.reason, v.reason
    assert len(shapes.shapes_of(_Job(_p("array", _t("list", _t("int"), length=(0, 3))),  # type: ignore[arg-type]
                                      _p("other", _t("list", _t("int"), length=(0, 2)))))) == 12


def test_a_loop_that_never_returns_spends_one_budget(tmp_path: Path) -> None:
    """The shapes run in one worker under one CPU limit: the budget is not paid once per shape."""
    src = "def spin(array, n):\n    while True:\n        pass\n"
    r = _check(tmp_path, src, "spin", "SP-1")
    (v,) = r.verdicts
    assert v.verdict is Verdict.UNKNOWN and v.reason.startswith("budget exhausted"), v.reason
    assert v.reason.startswith("budget exhausted: the CPU limit fired: the worker used its CPU limit of 5 CPU s")
