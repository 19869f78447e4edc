"""Model-based requirements (issue 23): `model REF [up to N calls]` compares every call sequence up to N on
the implementation and a reference model; a counterexample is the shortest failing subsequence, replayed
concretely and printed as a readable test; the sequence bound is part of every passing verdict. Also the
configurable bound of class invariants (`invariant EXPR up to N calls`)."""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.specs_lang import SpecNameError, parse
from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang import ast as A
from evalgap.specs_lang.diagnostics import (MISPLACED_CLAUSE, MODEL_BAD_OPERATION, MODEL_UNKNOWN_OPERATION,
                                            SEQUENCE_BOUND)
from evalgap.specs_lang.format import format_spec
from evalgap.translators import build_harness
from evalgap.verifier.findings import RequirementResult, Verdict

ROOT = Path(__file__).resolve().parents[1]
KV = ROOT / "case_studies" / "kvstore"

SPEC = """\
spec kv "model"
  target: {target}

class KVStore
  method put(key: str, value: bytes) -> None
  method get(key: str) -> bytes
  method delete(key: str) -> None
  requirement KV-M "The store behaves like a dict over put, get and delete."
    model {{}}
      put(key, value): model[key] = value
      get(key): model[key]
      delete(key): del model[key]
"""

#: a store that keeps the first value written under a key: only put, put, get shows it (3 calls)
PLANTED = (KV / "reference_store.py").read_text(encoding="utf-8").replace(
    "self._data[key] = bytes(value)", "self._data.setdefault(key, bytes(value))")


def _checks(text: str) -> list[str]:
    try:
        check_spec(parse(text))
    except SpecNameError as exc:
        return [d.code for d in exc.diagnostics]
    return []


def test_parse_and_format_round_trip() -> None:
    text = SPEC.format(target="agent_store.py").replace("model {}", "model {} up to 5 calls") + (
        "  requirement KV-R \"Same as the reference.\"\n    model reference_store.KVStore\n"
        "  requirement KV-I \"inv\"\n    invariant True up to 2 calls\n")
    spec = parse(text)
    m, ref, inv = (r.clauses[0] for r in spec.classes[0].requirements)
    assert isinstance(m, A.Model) and m.max_calls == 5 and isinstance(m.ref, A.DictExpr)
    assert [(o.name, o.params, o.kind) for o in m.ops] == [
        ("put", ("key", "value"), "assign"), ("get", ("key",), "expr"), ("delete", ("key",), "delete")]
    assert isinstance(ref, A.Model) and ref.ops == () and ref.max_calls is None
    assert isinstance(inv, A.Invariant) and inv.max_calls == 2
    out = format_spec(spec, text)
    assert out == text and parse(out) == spec


def test_checker_codes() -> None:
    base = SPEC.format(target="agent_store.py")
    assert _checks(base) == []
    assert _checks(base.replace("model {}", "model {} up to 9 calls")) == [SEQUENCE_BOUND]
    assert _checks(base.replace("get(key): model[key]", "gett(key): model[key]")) == [MODEL_UNKNOWN_OPERATION]
    assert MODEL_UNKNOWN_OPERATION in _checks(base.replace("get(key): model[key]", "get(k): model[k]"))
    assert _checks(base.replace("model[key] = value", "model2 = value")).count(MODEL_BAD_OPERATION) == 1
    assert _checks(base.replace("get(key): model[key]", "get(key)")) == [MODEL_BAD_OPERATION]
    assert _checks('requirement T "top"\n  model {}\n') == [MISPLACED_CLAUSE]
    assert _checks(base.replace("  requirement KV-M", "  requirement KV-I \"i\"\n    invariant True up to 0 calls\n"
                                "  requirement KV-M")) == [SEQUENCE_BOUND]


def _harness_ns(target_src: str) -> tuple[dict[str, object], object]:
    mod = types.ModuleType("eg_model_t")
    exec(compile(target_src, "eg_model_t.py", "exec"), mod.__dict__)  # noqa: S102 - our own fixture
    sys.modules["eg_model_t"] = mod
    h = build_harness(parse(SPEC.format(target="x.py")), "eg_model_t", "eg_model_h")
    ns: dict[str, object] = {"__name__": "eg_model_h"}
    exec(compile(h.source, "eg_model_h.py", "exec"), ns)  # noqa: S102 - generated harness of our own spec
    return ns, h.obligation("KV-M")


def _args(ops: list[int], key: str = "k", values: tuple[bytes, ...] = (b"1", b"2", b"3", b"4")) -> list[object]:
    out: list[object] = []
    for op, v in zip(ops, values):
        out += [op, key, v, key, key]  # op, put(key, value), get(key), delete(key)
    return out


def test_harness_compares_results_and_exceptions() -> None:
    ns, ob = _harness_ns(PLANTED)
    try:
        assert ob.kind == "scenario" and ob.model is not None  # type: ignore[attr-defined]
        assert ob.model.operations == ("put", "get", "delete") and ob.model.steps == 4  # type: ignore[attr-defined]
        assert ob.bounds[0].startswith("call sequence: at most 4 calls of put, get, delete")  # type: ignore[attr-defined]
        run = ns["_eg_run_" + ob.function]  # type: ignore[attr-defined]

        def check(*args: object) -> int:  # the failing call's step (the check function asserts it is 0)
            return run(False, *args)[2]  # type: ignore[no-any-return, operator]

        skip = 3
        assert check(*_args([0, 1, 2, 1])) == 0  # put, get, delete, get (KeyError on both): agree
        assert check(*_args([0, 0, 1, skip])) == 3  # put, put, get: the first value comes back at call 3
        assert check(*_args([0, skip, 0, 1])) == 4  # a skipped step in between
        test, why, calls = ns[ob.model.trace_function](*_args([0, 0, 1, skip]))  # type: ignore[attr-defined, operator]
        assert calls == 3 and "s.get('k')" in why and "b'1'" in why and "b'2'" in why
        assert test.splitlines()[1:] == ["    s = KVStore()", "    s.put('k', b'1')", "    s.put('k', b'2')",
                                         "    assert s.get('k') == b'2'  # the implementation: b'1'"]
        test, _, _ = ns[ob.model.trace_function](*_args([1, skip, skip, skip]))  # type: ignore[attr-defined, operator]
        assert "    with pytest.raises(KeyError):" in test.splitlines()
    finally:
        del sys.modules["eg_model_t"]


def _kv_case(tmp_path: Path, store: str | None) -> Path:
    folder = tmp_path / "kv"
    folder.mkdir()
    for f in ("agent_store.py", "reference_store.py"):
        shutil.copy(KV / f, folder / f)
    name = "agent_store"
    if store is not None:
        name = "planted_store"
        (folder / "planted_store.py").write_text(store, encoding="utf-8")
    return write_case(folder, (folder / f"{name}.py").read_text(encoding="utf-8"), SPEC, name=name)


def _one(results: list[RequirementResult]) -> RequirementResult:
    assert len(results) == 1
    return results[0]


def _calls(res: RequirementResult) -> int:
    """The number of calls in the refuting verdict's counterexample (``s = KVStore(); s.put(...); ...``)."""
    v = next(v for v in res.verdicts if v.verdict is Verdict.REFUTED)
    assert v.counterexample is not None and v.reproducer is not None
    assert v.counterexample.startswith("s = KVStore(); s.put(")
    assert "def test_kv_m_model() -> None:" in v.reproducer and "import KVStore" in v.reproducer
    return sum(v.counterexample.count(f"s.{m}(") for m in ("put", "get", "delete"))


def test_agent_store_refuted_within_two_calls_by_hypothesis(tmp_path: Path) -> None:
    res = _one(run_check(_kv_case(tmp_path, None), engines=("hypothesis",)))
    assert res.verdict is Verdict.REFUTED
    v = res.verdicts[0]
    assert v.counterexample is not None and v.reproducer is not None
    assert _calls(res) <= 2 and "shortest failing sequence: 2 calls" in v.reason
    assert "assert s.get(" in v.reproducer and "s.put(" in v.reproducer


@pytest.mark.slow
def test_agent_store_refuted_within_two_calls_by_crosshair(tmp_path: Path) -> None:
    res = _one(run_check(_kv_case(tmp_path, None), budget_s=10.0))
    assert res.verdict is Verdict.REFUTED and _calls(res) == 2


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["crosshair", "hypothesis"])
def test_planted_bug_needs_three_calls(tmp_path: Path, engine: str) -> None:
    res = _one(run_check(_kv_case(tmp_path, PLANTED), engines=(engine,), budget_s=10.0))
    assert res.verdict is Verdict.REFUTED
    v = res.verdicts[0]
    assert _calls(res) == 3 and "shortest failing sequence: 3 calls" in v.reason
    assert v.counterexample is not None and v.counterexample.count("s.put(") == 2


@pytest.mark.slow
def test_reference_store_holds_with_its_bound(tmp_path: Path) -> None:
    spec = _kv_case(tmp_path, (KV / "reference_store.py").read_text(encoding="utf-8"))
    res = _one(run_check(spec, engines=("crosshair", "hypothesis"), budget_s=4.0))
    assert res.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)
    for v in res.verdicts:
        assert v.bounds and v.bounds[0].startswith("call sequence: at most 4 calls of put, get, delete")


METER = """\
class Meter:
    def __init__(self) -> None:
        self.level = 0
        self.calls = 0

    def tick(self) -> None:
        self.calls += 1
        if self.calls >= 4:  # breaks on the 4th call
            self.level = -1
"""

METER_SPEC = """\
spec meter "bounded invariant"
  target: {target}

class Meter
  method tick() -> None
  requirement MT-1 "The level stays non-negative."
    invariant self.level >= 0%s
"""


@pytest.mark.parametrize("bound, refuted", [("", False), (" up to 3 calls", False), (" up to 4 calls", True)])
def test_invariant_bound_is_configurable(tmp_path: Path, bound: str, refuted: bool) -> None:
    spec = write_case(tmp_path / "m", METER, METER_SPEC % bound, name="meter")
    res = _one(run_check(spec, budget_s=10.0))
    if refuted:
        assert res.verdict is Verdict.REFUTED
    else:
        assert res.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)
        assert res.verdicts[0].bounds[0] == ("call sequence: at most 3 method calls after construction (the "
                                             "invariant is checked after each; longer sequences are not explored)")
        assert res.verdicts[0].bounds[1].startswith("construction: arguments the constructor rejects")
