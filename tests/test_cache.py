"""The result cache: keyed by what a verdict depends on, robust to corruption, concurrency and kills."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from enginehelp import run_check, write_case
from evalgap.verifier.cache import (ResultCache, default_cache_dir, entry_key, target_fingerprint,
                                    verdict_from_dict, verdict_to_dict)
from evalgap.verifier.findings import Budget, EngineVerdict, Verdict

SPEC_FG = """\
spec t "cache test"
  target: {target}

function f(n: int) -> int
  requirement F-1 "Returns its argument."
    ensures result == n

function g(n: int) -> int
  requirement G-1 "Returns one more than its argument."
    ensures result == n + 1
"""

TARGET = """\
import helper_mod

def _twice(n: int) -> int:
    return 2 * n

def f(n: int) -> int:
    return _twice(n) - n

def g(n: int) -> int:
    return helper_mod.inc(n)
"""

HELPER = "def inc(n: int) -> int:\n    return n + 1\n"


@pytest.fixture()
def os_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as under an OS sandbox (verified results are cached only then; see verifier/sandbox/mode.py)."""
    monkeypatch.setenv("EVALGAP_SANDBOX_MODE", "os (test)")


def _verdict(reason: str = "r") -> EngineVerdict:
    return EngineVerdict("crosshair", Verdict.REFUTED, reason, Budget(seconds=2.0, used_s=0.5, paths=3),
                         "f(1)", (("n", "1"),), 1.25, reproducer="assert f(1) == 1")


def test_default_dir_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EVALGAP_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("EVALGAP_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "evalgap"


def test_roundtrip_and_corruption(tmp_path: Path) -> None:
    v = _verdict()
    assert verdict_from_dict(json.loads(json.dumps(verdict_to_dict(v)))) == v
    cache = ResultCache(tmp_path)
    key = entry_key("crosshair", "code", "fp", {"seconds": 2})
    assert cache.get(key) is None
    cache.put(key, v)
    assert cache.get(key) == v
    entry = next(tmp_path.rglob(f"{key}.json"))
    data = json.loads(entry.read_text())
    data["payload"]["verdict"] = "verified"  # tampered: the MAC no longer matches
    entry.write_text(json.dumps(data))
    assert cache.get(key) is None and cache.rejected == 1 and not entry.exists()
    cache.put(key, v)
    entry.write_text(entry.read_text()[:40])  # truncated, as by a kill mid-write without rename
    assert cache.get(key) is None and cache.rejected == 2
    cache.put(key, v)  # rebuilt
    assert ResultCache(tmp_path).get(key) == v
    other = entry.parent / f"{'0' * 64}.json"
    other.write_text(entry.read_text())  # an entry stored under the wrong key is not trusted
    assert cache.get("0" * 64) is None


def test_key_changes_with_each_input() -> None:
    base = entry_key("crosshair", "code", "fp", {"seconds": 2})
    assert base == entry_key("crosshair", "code", "fp", {"seconds": 2})
    assert len({base, entry_key("hypothesis", "code", "fp", {"seconds": 2}),
                entry_key("crosshair", "code2", "fp", {"seconds": 2}),
                entry_key("crosshair", "code", "fp2", {"seconds": 2}),
                entry_key("crosshair", "code", "fp", {"seconds": 3})}) == 5


def test_target_fingerprint_follows_dependencies(tmp_path: Path) -> None:
    (tmp_path / "target_mod.py").write_text(TARGET)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    paths = (str(tmp_path),)

    def fps() -> tuple[str | None, str | None]:
        return target_fingerprint("target_mod", paths, {"f"}), target_fingerprint("target_mod", paths, {"g"})

    f0, g0 = fps()
    (tmp_path / "target_mod.py").write_text(TARGET.replace("return helper_mod.inc(n)", "return n + 1"))
    f1, g1 = fps()
    assert f1 == f0 and g1 != g0  # changing g leaves f's fingerprint alone
    (tmp_path / "target_mod.py").write_text(TARGET.replace("2 * n", "n + n"))
    f2, _ = fps()
    assert f2 != f0  # f reaches _twice
    (tmp_path / "target_mod.py").write_text(TARGET)
    (tmp_path / "helper_mod.py").write_text(HELPER + "\n# changed\n")
    f3, g3 = fps()
    assert g3 != g0  # imported project modules count (whole module, conservatively for every requirement)
    assert target_fingerprint("no_such_module", paths, {"f"}) is None


def test_rerun_answers_from_cache_and_rechecks_only_what_changed(tmp_path: Path, os_sandbox: None) -> None:
    spec = write_case(tmp_path, TARGET, SPEC_FG)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    opts = dict(budget_s=2.0, jobs=1, engines=("crosshair",), cache=True, cache_dir=tmp_path / "cache")
    first = run_check(spec, **opts)
    assert [r.verdict for r in first] == [Verdict.VERIFIED, Verdict.VERIFIED]
    assert not any(v.cached for r in first for v in r.verdicts)
    second = run_check(spec, **opts)  # its time is a benchmark figure (benchmarks/engine.py), not asserted here
    assert all(v.cached for r in second for v in r.verdicts)
    assert [r.verdicts for r in second] == [tuple(v.__class__(**{**v.__dict__, "cached": True})
                                                  for v in r.verdicts) for r in first]
    (tmp_path / "target_mod.py").write_text(TARGET.replace("return helper_mod.inc(n)", "return n + 2"))
    third = {r.id: r for r in run_check(spec, **opts)}
    assert third["F-1"].verdicts[0].cached and third["F-1"].verdict is Verdict.VERIFIED
    assert not third["G-1"].verdicts[0].cached and third["G-1"].verdict is Verdict.REFUTED
    # a different budget is a different key
    fourth = run_check(spec, **{**opts, "budget_s": 3.0})
    assert not any(v.cached for r in fourth for v in r.verdicts)


def test_concurrent_runs_and_leftovers_leave_a_usable_cache(tmp_path: Path, os_sandbox: None) -> None:
    spec = write_case(tmp_path, TARGET, SPEC_FG)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    cache_dir = tmp_path / "cache"
    opts = dict(budget_s=2.0, jobs=1, engines=("crosshair",), cache=True, cache_dir=cache_dir)
    out: list[list[Verdict | None]] = []
    threads = [threading.Thread(target=lambda: out.append([r.verdict for r in run_check(spec, **opts)]))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [[Verdict.VERIFIED] * 2] * 2
    entries = list(cache_dir.rglob("*.json"))
    assert entries and all(not e.name.startswith(".tmp-") for e in entries)
    # a run killed between mkstemp and rename leaves a temporary file: harmless
    (entries[0].parent / ".tmp-killed.json").write_text("{\"key\": ")
    again = run_check(spec, **opts)
    assert all(v.cached for r in again for v in r.verdicts)


@pytest.mark.slow
def test_run_killed_half_way_leaves_a_usable_cache(tmp_path: Path, os_sandbox: None) -> None:
    import os
    import signal
    import subprocess
    import sys

    spec = write_case(tmp_path, TARGET, SPEC_FG)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    env = {**os.environ, "EVALGAP_CACHE_DIR": str(tmp_path / "cache")}
    cmd = [str(Path(sys.executable).parent / "evalgap"), "check", str(spec), "--budget", "2", "-j", "1",
           "--engines", "crosshair", "--format", "json"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((tmp_path / "cache").rglob("*.json")):
        time.sleep(0.05)  # kill as soon as the first entry exists: the second requirement is in flight
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    results = run_check(spec, budget_s=2.0, jobs=1, engines=("crosshair",), cache=True,
                        cache_dir=tmp_path / "cache")
    assert [r.verdict for r in results] == [Verdict.VERIFIED, Verdict.VERIFIED]
    again = run_check(spec, budget_s=2.0, jobs=1, engines=("crosshair",), cache=True, cache_dir=tmp_path / "cache")
    assert all(v.cached for r in again for v in r.verdicts)
