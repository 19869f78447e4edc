"""Verdict integrity (issue 18): the worker scaffold's result channel and tamper check, the hash seeds, the
overall verdict over integrity reasons, the checked-environment gaming rules and the gaming scan of check."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from evalgap.verifier.analysis.gaming import scan_source
from evalgap.verifier.analysis.gaming_check import apply_findings, scan_target
from evalgap.verifier.engines.run import overall
from evalgap.verifier.findings import EngineVerdict, RequirementResult, Verdict
from evalgap.verifier.sandbox import channel, runner
from evalgap.verifier.sandbox.runner import Limits, run_worker

from enginehelp import run_check, write_case


# ------------------------------------------------------------------------------------------- channel
def _channel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: dict[str, Any]) -> channel.Channel:
    monkeypatch.setenv("PYTHONHASHSEED", "0")  # restored afterwards; the channel removes it
    req = tmp_path / "request.json"
    req.write_text(json.dumps(request), encoding="utf-8")
    return channel.Channel([str(req), str(tmp_path / "result.json")])


def _result(tmp_path: Path) -> dict[str, Any]:
    loaded = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_channel_writes_the_result_once_and_hides_the_hash_seed(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ch = _channel(tmp_path, monkeypatch, {"paths": []})
    import os

    assert "PYTHONHASHSEED" not in os.environ
    ch.send({"outcome": "passed", "n": 3, "x": float("inf")})
    ch.send({"outcome": "failed"})  # ignored: one result per run
    assert _result(tmp_path) == {"outcome": "passed", "n": 3, "x": float("inf")}


def test_patched_json_is_tampering_and_cannot_rewrite_the_result(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ch = _channel(tmp_path, monkeypatch, {})
    monkeypatch.setattr(json, "dumps", lambda *a, **k: '{"outcome": "passed"}')
    monkeypatch.setattr(json.encoder, "encode_basestring_ascii", lambda s: '"forged"')
    assert channel.encode({"a": "b"}) == '{"a": "b"}'  # the serializer was bound before the patch
    ch.send({"outcome": "failed"})
    res = _result(tmp_path)
    assert res["outcome"] == "tampered"
    assert set(res["tampered"]) == {"json.dumps replaced", "json.encoder.encode_basestring_ascii replaced"}
    assert res["error"].startswith("tampered: json")


def test_patched_builtin_is_tampering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    ch = _channel(tmp_path, monkeypatch, {})
    monkeypatch.setattr(builtins, "bool", lambda *a: True)
    ch.send({"outcome": "failed"})
    assert _result(tmp_path)["tampered"] == ["builtins.bool replaced"]


def test_watched_function_detects_a_dropped_contract(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import icontract

    @icontract.ensure(lambda result: result > 0)
    def checked() -> int:
        return 1

    ch = _channel(tmp_path, monkeypatch, {})
    ch.watch_function("harness.checked", checked)
    assert ch.tampered() == []
    getattr(checked, "__postconditions__").clear()  # what a target could do to the harness at call time
    assert ch.tampered() == ["harness.checked replaced"]


def _watched_module() -> Any:
    import types

    mod = types.ModuleType("watched_mod")
    exec(textwrap.dedent("""
        def f(x=1, *, y=2):
            return x
        def g():
            return 0
        class C:
            @staticmethod
            def s():
                return 1
            @classmethod
            def c(cls):
                return 2
            def m(self):
                return 3
        bound = C().m
        data = 5
    """), mod.__dict__)
    return mod


def _evil() -> int:
    return 99


@pytest.mark.parametrize("change, expected", [
    (lambda m: setattr(m, "f", _evil), ["watched_mod.f replaced"]),
    (lambda m: delattr(m, "g"), ["watched_mod.g removed"]),
    (lambda m: setattr(m.f, "__code__", _evil.__code__), ["watched_mod.f rewritten (its __code__ or defaults)"]),
    (lambda m: setattr(m.f, "__defaults__", (7,)), ["watched_mod.f rewritten (its __code__ or defaults)"]),
    (lambda m: setattr(m.f, "__kwdefaults__", {"y": 9}), ["watched_mod.f rewritten (its __code__ or defaults)"]),
    # the wrapper object stays the same while the function inside it is rebound in place
    (lambda m: vars(m.C)["s"].__init__(_evil), ["watched_mod.C.s rewritten (its __code__ or defaults)"]),
    (lambda m: vars(m.C)["c"].__init__(_evil), ["watched_mod.C.c rewritten (its __code__ or defaults)"]),
    (lambda m: setattr(m.C.m, "__code__", _evil.__code__), ["watched_mod.C.m rewritten (its __code__ or defaults)",
                                                            "watched_mod.bound rewritten (its __code__ or defaults)"]),
    (lambda m: setattr(m, "data", 6), []),  # data is not watched: libraries update their own
    # the module keeps its namespace but answers attribute reads through another class
    (lambda m: setattr(m, "__class__", type("Lying", (types.ModuleType,), {})), ["watched_mod re-classed (its __class__ assigned)"]),
])
def test_watch_sees_entries_replaced_removed_or_rewritten_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   change: Any, expected: list[str]) -> None:
    mod = _watched_module()
    ch = _channel(tmp_path, monkeypatch, {})
    ch.watch("watched_mod", mod)
    ch.watch("watched_mod.C", mod.C)
    assert ch.tampered() == []
    change(mod)
    assert sorted(ch.tampered()) == sorted(expected)


def test_state_changes_of_target_modules_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mod_dir = tmp_path / "proj"
    mod_dir.mkdir()
    (mod_dir / "counting_mod.py").write_text("calls = 0\nready = False\nratio = 0.5\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(mod_dir))
    import counting_mod  # type: ignore[import-not-found]

    ch = _channel(tmp_path, monkeypatch, {})
    ch.watch_state([str(mod_dir)])
    counting_mod.ready = True  # a flag is not a counter
    assert ch.state_changes() == []
    counting_mod.calls = 7
    assert ch.state_changes() == ["counting_mod.calls: 0 -> 7"]
    ch.send({"outcome": "passed"})
    assert _result(tmp_path)["state_changed"] == ["counting_mod.calls: 0 -> 7"]


# ------------------------------------------------------------------------------------------- hash seeds
def _hash_in(seed: int) -> int:
    out = subprocess.run([sys.executable, "-c", "print(hash('evalgap'))"], env={"PYTHONHASHSEED": str(seed)},
                         capture_output=True, text=True, check=True, timeout=30).stdout
    return int(out)


@pytest.mark.parametrize("seed", [5, 123456])
def test_run_worker_runs_under_the_given_hash_seed(seed: int) -> None:
    request = {"program": "def f():\n    return hash('evalgap')\n", "function": "f", "params": [], "pre": [],
               "clauses": [{"key": "k", "kind": "ensures", "py": f"result == {_hash_in(seed)}", "exc": "",
                            "old": []}], "cases": [{"args": "[]"}], "per_call_s": 5, "budget_s": 20}
    out = run_worker("clause", request, Limits(cpu_s=20, wall_s=60), hash_seed=seed)
    assert out.result is not None and out.result["clauses"]["k"]["held"] == 1
    other = run_worker("clause", request, Limits(cpu_s=20, wall_s=60), hash_seed=seed + 1)
    assert other.result is not None and other.result["clauses"]["k"]["failed"] == 1


def test_seeds_are_three_distinct_values_and_can_be_fixed(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(set(runner.HASH_SEEDS)) == 3
    monkeypatch.setenv("EVALGAP_HASH_SEEDS", "6,7,2")
    assert runner._choose_seeds() == (6, 7, 2)
    monkeypatch.setenv("EVALGAP_HASH_SEEDS", "6,6,2")  # not distinct: random ones instead
    assert len(set(runner._choose_seeds())) == 3


_FRUIT = """\
def smallest_fruit() -> str:
    return next(iter({'kiwi', 'plum', 'lime'}))
"""
_FRUIT_SPEC = """\
spec t "hash seed"
  target: {target}

function smallest_fruit() -> str
  requirement SF-1 "Returns the smallest of kiwi, plum, lime."
    ensures result == min(["kiwi", "plum", "lime"])
"""


def test_second_crosshair_run_under_another_seed_refutes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under PYTHONHASHSEED 6 the set iterates 'kiwi' first (right), under 2 'plum' (wrong): the first run
    verifies, the second refutes, and the reason names both seeds."""
    monkeypatch.setattr(runner, "HASH_SEEDS", (6, 7, 2))
    [res] = run_check(write_case(tmp_path, _FRUIT, _FRUIT_SPEC), budget_s=3.0)
    [v] = res.verdicts
    assert v.verdict is Verdict.REFUTED, v
    assert "under PYTHONHASHSEED=2" in v.reason and "passes under PYTHONHASHSEED=6" in v.reason
    assert v.budget.hash_seeds == (6, 2)


def test_verified_records_both_seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "HASH_SEEDS", (6, 7, 8))  # 'kiwi' first under all three
    [res] = run_check(write_case(tmp_path, _FRUIT, _FRUIT_SPEC), budget_s=3.0)
    assert res.verdict is Verdict.VERIFIED
    assert res.verdicts[0].budget.hash_seeds == (6, 8)
    assert "PYTHONHASHSEED 6, 8" in res.verdicts[0].budget.describe()


@pytest.mark.parametrize("second, expected", [
    (Verdict.NO_COUNTEREXAMPLE, Verdict.NO_COUNTEREXAMPLE),  # the second run ran out of budget: no proof
    (Verdict.UNKNOWN, Verdict.UNKNOWN),                      # anything else: the seed matters
])
def test_a_second_run_that_runs_out_of_budget_is_no_counterexample(monkeypatch: pytest.MonkeyPatch,
                                                                   second: Verdict, expected: Verdict) -> None:
    from evalgap.verifier.engines import crosshair as ch
    from evalgap.verifier.findings import EngineVerdict

    runs = iter([EngineVerdict("crosshair", Verdict.VERIFIED, "all paths exhausted"),
                 EngineVerdict("crosshair", second, "no counterexample within 2 s budget" if
                               second is Verdict.NO_COUNTEREXAMPLE else "crash: the worker ended")])
    monkeypatch.setattr(ch, "_one_run", lambda *a, **k: next(runs))
    monkeypatch.setattr(runner, "HASH_SEEDS", (6, 7, 8))
    v = ch.run_crosshair(None, None, Path("."), None, None, "")  # type: ignore[arg-type]
    assert v.verdict is expected
    assert "PYTHONHASHSEED=8" in v.reason and v.budget.hash_seeds == (6, 8)
    if expected is Verdict.UNKNOWN:
        assert v.reason.startswith("depends on the hash seed")


# ------------------------------------------------------------------------------------------- overall
def test_integrity_unknowns_outweigh_a_proof_but_not_a_refutation() -> None:
    v, u, r = Verdict.VERIFIED, Verdict.UNKNOWN, Verdict.REFUTED
    assert overall([v, u], ["proof", "nondeterminism: a failure did not reproduce"]) is u
    assert overall([v, u], ["proof", "tampered: json.dump replaced"]) is u
    assert overall([v, u], ["proof", "depends on the hash seed: ..."]) is u
    assert overall([v, u], ["proof", "budget exhausted: ..."]) is v  # an ordinary unknown does not
    assert overall([r, u], ["x", "tampered: ..."]) is r
    assert overall([v, Verdict.NO_COUNTEREXAMPLE]) is v


# ------------------------------------------------------------------------------------------- rules
@pytest.mark.parametrize("code, line", [
    ("EG401", "if sys.gettrace() is None: return x"),
    ("EG401", "f = sys._getframe(1)"),
    ("EG401", "if name.startswith('icontract'): return x"),
    ("EG401", "ok = importlib.util.find_spec('crosshair') is None"),
    ("EG405", "if resource.getrlimit(resource.RLIMIT_CPU)[0] == -1: return x"),
    ("EG405", "if 'PYTHONHASHSEED' not in os.environ: return x"),
    ("EG405", "if any(k.startswith('EVALGAP_') for k in os.environ): return x"),
    ("EG405", "if 'worker' in os.getcwd(): return x"),
    ("EG405", "if os.environ.get('HOME', '').startswith('/tmp'): return x"),
    ("EG405", "if TOOL not in sys.modules: return x"),
    ("EG408", "if datetime.date.today().year >= 2027: return x"),
    ("EG408", "if time.time() > 1798761600: return x"),
])
def test_environment_probe_rules(code: str, line: str) -> None:
    src = ("import datetime, importlib.util, os, resource, sys, time\nTOOL = 'x'\n\n"
           f"def f(x, name=''):\n    {line}\n    return x + 1\n")
    assert code in {f.code for f in scan_source(src)}


def test_call_counter_rule() -> None:
    src = "_n = 0\n\ndef f(x):\n    global _n\n    _n += 1\n    if _n >= 1000:\n        return x\n    return x + 1\n"
    assert [(f.code, f.line) for f in scan_source(src)] == [("EG409", 6)]


@pytest.mark.parametrize("line", [
    "start = time.time()\n    while time.time() - start < 5: pass",  # a timeout, not a date
    "path = os.path.join(os.getcwd(), 'data.csv')",
    "if x in sys.modules['os'].__dict__: return x",
    "if datetime.date.today() > deadline: return x",
    "n = len(str(x))\n    if n > 3: return x",
])
def test_ordinary_code_is_not_flagged(line: str) -> None:
    src = f"import datetime, os, sys, time\n\ndef f(x, deadline=None):\n    {line}\n    return x + 1\n"
    assert scan_source(src) == []


# ------------------------------------------------------------------------------------------- check's scan
def _req(rid: str, funcs: tuple[str, ...], verdict: Verdict = Verdict.VERIFIED) -> RequirementResult:
    return RequirementResult(rid, "p", "s.req:1:1", "formal", target_functions=funcs,
                             verdicts=(EngineVerdict("crosshair", verdict, "r"),), verdict=verdict)


def test_a_finding_marks_the_requirements_that_reach_it(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("import sys\n\ndef probe():\n    return sys.gettrace() is None\n",
                                        encoding="utf-8")
    target = tmp_path / "mod.py"
    target.write_text(textwrap.dedent("""\
        from helper import probe

        def g(x):
            return x if probe() else x + 1

        def h(x):
            return x + 1

        def k(x):
            return g(x)
        """), encoding="utf-8")
    scanned = scan_target(str(target), [str(tmp_path)])
    assert [f.code for f in scanned.findings] == ["EG401"] and scanned.owners == ("probe",)
    reqs, found = apply_findings([_req("G", ("g",)), _req("H", ("h",)), _req("K", ("k",)),
                                  _req("R", ("g",), Verdict.REFUTED)], scanned)
    verdicts = {r.id: r.verdict for r in reqs}
    assert verdicts == {"G": Verdict.UNKNOWN, "H": Verdict.VERIFIED, "K": Verdict.UNKNOWN, "R": Verdict.REFUTED}
    g = next(r for r in reqs if r.id == "G")
    assert g.verdicts[-1].engine == "gaming" and g.verdicts[-1].reason.startswith("gaming suspected: EG401 at helper.py")
    assert [(f.code, f.kind, f.requirement_ids, f.level) for f in found] == [("EG401", "gaming", ("G", "K", "R"), "error")]


def test_module_level_finding_marks_every_requirement(tmp_path: Path) -> None:
    target = tmp_path / "mod.py"
    target.write_text("import icontract\nicontract.ensure = lambda *a, **k: (lambda f: f)\n\ndef g(x):\n"
                      "    return x\n", encoding="utf-8")
    reqs, found = apply_findings([_req("A", ("g",)), _req("B", ())], scan_target(str(target), [str(tmp_path)]))
    assert [r.verdict for r in reqs] == [Verdict.UNKNOWN, Verdict.UNKNOWN]
    assert [f.code for f in found] == ["EG402"]


def test_check_exits_1_for_a_gaming_finding(tmp_path: Path) -> None:
    import evalgap

    src = "import sys\n\ndef f(n: int) -> int:\n    if n == 7919 * 13 and sys.gettrace() is None:\n        return 0\n    return n\n"
    spec = write_case(tmp_path, src)
    events: list[object] = []
    report = evalgap.check(spec, settings=evalgap.Settings(budget_s=2, engines=("crosshair",), cache=False,
                                                           analysis=False, jobs=1), on_event=events.append)
    [r] = report.requirements
    assert r.verdict is Verdict.UNKNOWN and r.verdicts[-1].reason.startswith("gaming suspected: EG401")
    assert evalgap.exit_code(report) == 1
    # the progress line shows the report's verdict, never the engines' `verified` before the scan
    [done] = [e for e in events if type(e).__name__ == "RequirementFinished"]
    assert done.result.verdict is Verdict.UNKNOWN  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------- typing names
_COUNTER_SPEC = """\
spec s
  target: {target}

class Counter
  method inc() -> int
  requirement C-1 "inc returns a positive count"
    scenario ():
      c = Counter()
      expect c.inc() > 0
"""


@pytest.mark.parametrize("step, expected", [(1, Verdict.VERIFIED), (-1, Verdict.REFUTED)])
def test_a_target_class_named_like_a_typing_name_is_not_tampering(tmp_path: Path, step: int,
                                                                 expected: Verdict) -> None:
    """The harness imports typing's `Counter` for annotations and then binds the target's own class `Counter`:
    that rebinding is the harness's, not a tamper sign (before: every requirement `unknown (tampered)`)."""
    target = f"""\
    class Counter:
        def __init__(self) -> None:
            self.n = 0

        def inc(self) -> int:
            self.n += {step}
            return self.n
    """
    [res] = run_check(write_case(tmp_path, target, _COUNTER_SPEC), budget_s=3.0)
    assert res.verdict is expected, res.verdicts
    assert not any("tampered" in v.reason for v in res.verdicts)


def test_a_target_redefining_a_typing_name_the_spec_reads_as_a_type_is_tampering(tmp_path: Path) -> None:
    """A hostile target that defines `List` so that the spec's `xs: List[int]` draws only booleans (where its
    wrong `f` happens to pass) is caught: only a class the spec declares may replace a typing name."""
    target = """\
    class _Narrow:
        def __getitem__(self, item):
            return bool

    List = _Narrow()

    def f(xs):
        return 1 if xs in (True, False) else -1
    """
    spec = "spec s\n  target: {target}\n\nfunction f(xs: List[int]) -> int\n" \
           "  requirement F-1 \"f is positive\"\n    ensures result > 0\n"
    [res] = run_check(write_case(tmp_path, target, spec), budget_s=2.0)
    assert res.verdict is Verdict.UNKNOWN, res.verdicts
    assert all(v.reason.startswith("tampered") and "List is not what the harness imported" in v.reason
               for v in res.verdicts), res.verdicts


def test_a_declared_class_named_like_a_typing_name_used_as_a_type_is_tampering(tmp_path: Path) -> None:
    """Red team: a spec declaring `class Optional` and typing `f(x: Optional[int])`; the target's `Optional`
    turns the annotation CrossHair reads into `bool`, so CrossHair "exhausted all paths" on True/False while `f`
    is wrong at 7340233. A declared name in a type position of the harness is not exempt: tampering."""
    target = """\
    class Optional:
        def __class_getitem__(cls, item):
            return bool

        def get(self) -> int:
            return 1

    def f(x):
        return -1 if x == 7340233 else 1
    """
    spec = ("spec s\n  target: {target}\n\nclass Optional\n  method get() -> int\n"
            "  requirement O-1 \"get returns a positive value\"\n    scenario ():\n      o = Optional()\n"
            "      expect o.get() > 0\n\nfunction f(x: Optional[int]) -> int\n"
            "  requirement F-1 \"f is positive\"\n    ensures result > 0\n")
    results = {r.id: r for r in run_check(write_case(tmp_path, target, spec), budget_s=2.0)}
    assert results["F-1"].verdict is Verdict.UNKNOWN, results["F-1"].verdicts
    assert all(v.reason.startswith("tampered") for v in results["F-1"].verdicts), results["F-1"].verdicts


_REF_STORE = """\
class KVStore:
    def __init__(self) -> None:
        self.d: dict[str, bytes] = {}

    def put(self, key: str, value: bytes) -> None:
        self.d[key] = value

    def get(self, key: str) -> bytes:
        return self.d[key]
"""
_BUGGY_STORE = """\
class KVStore:
    def __init__(self):
        self.d = {}

    def put(self, key, value):
        if key not in self.d:  # keeps the first value
            self.d[key] = value

    def get(self, key):
        return self.d[key]
"""
_MODEL_SPEC = """\
spec s
  target: {target}

class KVStore
  method put(key: str, value: bytes) -> None
  method get(key: str) -> bytes
  requirement KV-8 "The store behaves like the reference store."
    model reference_store.KVStore
"""


@pytest.mark.parametrize("trick, expected", [
    ("", Verdict.REFUTED),
    ("\nclass reference_store:\n    KVStore = KVStore\n", Verdict.REFUTED),   # the module wins over the attribute
    ("\nimport reference_store as _r\n_r.KVStore = KVStore\ndel _r\n", Verdict.UNKNOWN),  # rebinding: tampering
    ("\nimport reference_store as _r\n_r.KVStore.put = KVStore.put\n", Verdict.UNKNOWN),  # patched in place
    ("\n_get = KVStore.get\ndef _patch(self, key):\n    import reference_store as _r\n"
     "    _r.KVStore.put = KVStore.put\n    return _get(self, key)\nKVStore.get = _patch\n",
     Verdict.UNKNOWN),  # patched while it runs
])
@pytest.mark.parametrize("engine", ["crosshair", "hypothesis"])
def test_a_target_cannot_be_its_own_reference_model(tmp_path: Path, trick: str, expected: Verdict,
                                                    engine: str) -> None:
    """Red team: a buggy store that named itself the reference (an attribute `reference_store` of the target, or
    the reference module's class rebound at import time) was compared with itself: `no-counterexample`."""
    spec = write_case(tmp_path, _BUGGY_STORE + trick, _MODEL_SPEC)
    (tmp_path / "reference_store.py").write_text(_REF_STORE, encoding="utf-8")
    [res] = run_check(spec, budget_s=3.0, engines=(engine,))
    if expected is Verdict.REFUTED and engine == "crosshair" and res.verdict is Verdict.NO_COUNTEREXAMPLE:
        pytest.skip("CrossHair did not reach the two-put sequence within 3 s (Hypothesis covers this case)")
    assert res.verdict is expected, res.verdicts
    if expected is Verdict.UNKNOWN:
        assert all(v.reason.startswith("tampered") and "reference model reference_store.KVStore" in v.reason
                   for v in res.verdicts), res.verdicts
