"""The lru_cache case study (issue 23): an agent's LRU cache whose own tests pass is refuted by the model
requirement LRU-3 with its shortest failing sequence of 3 calls (put, put, get of one key), emitted as a
readable test that fails on the agent and passes on the reference; the reference holds with its sequence
bound. payment_retry's PAY-4 (a model requirement on the provider fake) refutes a provider that
deduplicates by order ID instead of by idempotency key."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from egtest import CASES
from enginehelp import run_check
from evalgap.verifier.findings import RequirementResult, Verdict

LRU = CASES / "lru_cache"


def _case(tmp_path: Path, impl: str) -> Path:
    folder = tmp_path / "lru"
    shutil.copytree(LRU, folder, ignore=shutil.ignore_patterns("__pycache__"))
    spec = folder / "cache.req"
    spec.write_text(spec.read_text(encoding="utf-8").replace("target: agent_cache.py", f"target: {impl}"),
                    encoding="utf-8")
    return spec


def _by_id(results: list[RequirementResult]) -> dict[str, RequirementResult]:
    return {r.id: r for r in results}


def test_the_agents_own_tests_pass() -> None:
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_cache.py"],
                         cwd=LRU, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout


def test_agent_cache_refuted_with_a_three_call_sequence(tmp_path: Path) -> None:
    res = _by_id(run_check(_case(tmp_path, "agent_cache.py"), engines=("hypothesis",)))
    assert res["LRU-1"].verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)
    assert res["LRU-2"].verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)  # the scenarios miss it
    lru3 = res["LRU-3"]
    assert lru3.verdict is Verdict.REFUTED
    v = lru3.verdicts[0]
    assert v.counterexample is not None and v.reproducer is not None
    assert "shortest failing sequence: 3 calls" in v.reason
    calls = v.counterexample.split("; ")[1:]
    assert [c.split("(")[0] for c in calls] == ["s.put", "s.put", "assert s.get"]
    key = calls[0].split("(")[1].split(",")[0]
    assert calls[1].startswith(f"s.put({key},") and calls[2].startswith(f"assert s.get({key}) ==")
    # the emitted test fails on the agent and passes on the reference
    test = v.reproducer
    for impl, code in (("agent_cache", 1), ("reference_cache", 0)):
        folder = tmp_path / f"run_{impl}"
        folder.mkdir()
        shutil.copy(LRU / f"{impl}.py", folder / f"{impl}.py")
        body = test.replace("agent_cache", impl) if impl != "agent_cache" else test
        (folder / "test_emitted.py").write_text(body, encoding="utf-8")
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_emitted.py"],
                             cwd=folder, capture_output=True, text=True, timeout=300)
        assert out.returncode == code, (impl, body, out.stdout)


@pytest.mark.slow
def test_reference_cache_holds_with_its_bound(tmp_path: Path) -> None:
    res = _by_id(run_check(_case(tmp_path, "reference_cache.py"), engines=("crosshair", "hypothesis"),
                           budget_s=4.0))
    lru3 = res["LRU-3"]
    assert lru3.verdict in (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE, Verdict.UNKNOWN)
    assert not any(v.verdict is Verdict.REFUTED for v in lru3.verdicts)
    for v in lru3.verdicts:
        if v.verdict is not Verdict.UNKNOWN:  # a CrossHair wall-clock timeout under load carries no bound
            assert v.bounds and v.bounds[0].startswith("call sequence: at most 3 calls of get, put")
    assert any(v.engine == "hypothesis" and v.verdict is Verdict.NO_COUNTEREXAMPLE for v in lru3.verdicts)


PAY = CASES / "payment_retry"
CARELESS = '''
class Provider(_Provider):
    def execute(self, order_id, amount, idempotency_key):
        if any(oid == order_id for oid, _ in self.ledger):  # planted: deduplicates by order ID, not by key
            return
        self.ledger.append((order_id, amount))
'''


@pytest.mark.slow
def test_pay4_refutes_a_provider_that_deduplicates_by_order(tmp_path: Path) -> None:
    folder = tmp_path / "pay"
    shutil.copytree(PAY, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "careless_orders.py").write_text(
        (PAY / "reference_orders.py").read_text(encoding="utf-8").replace(
            "from payment import PaymentClient, Provider", "from payment import PaymentClient\n"
            "from payment import Provider as _Provider") + CARELESS, encoding="utf-8")
    spec = folder / "orders.req"
    spec.write_text(spec.read_text(encoding="utf-8").replace("target: agent_orders.py", "target: careless_orders.py"),
                    encoding="utf-8")
    res = _by_id(run_check(spec, engines=("hypothesis",)))
    pay4 = res["PAY-4"]
    assert pay4.verdict is Verdict.REFUTED
    v = pay4.verdicts[0]
    assert v.counterexample is not None and v.counterexample.count("s.execute(") == 2
    assert "s.charges(" in v.counterexample
