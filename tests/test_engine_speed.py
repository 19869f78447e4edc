"""What makes `evalgap check` fast, tested for behaviour (not timed): the target's signatures and the Z3
analysis come from the cache (a corrupt entry is rebuilt), a fully cached run imports none of the heavy
engines, one fork server starts per worker, and the longest requirements are scheduled first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from enginehelp import write_case
from evalgap.specs_lang.loader import load_spec
from evalgap.verifier.engines import run as E
from evalgap.verifier.sandbox import forkserver
from evalgap.verifier.sandbox import runner as sandbox
from evalgap.verifier.analysis.run import analyze_spec, analyze_spec_cached
from evalgap.verifier.cache import ResultCache
from evalgap.verifier.findings import EngineVerdict, Verdict
from evalgap.verifier.project.signatures import target_signatures
from evalgap.verifier.project.targets import resolve_target

SPEC_EX = """\
spec t "speed test"
  target: {target}

function f(n: int) -> int
  requirement F-1 "f(3) is 3."
    example f(3) == 3
  requirement F-2 "Non-negative for non-negative input."
    requires n >= 0
    ensures result >= 0
"""


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json"))


def test_signatures_come_from_the_cache_and_a_corrupt_entry_is_rebuilt(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    spec = write_case(tmp_path / "c", "def f(n: int) -> int:\n    return n\n", SPEC_EX)
    target = resolve_target("target_mod.py", spec.parent)
    cache = ResultCache(tmp_path / "cache")
    first = target_signatures(target, cache=cache)
    assert "f" in first.functions and len(_entries(tmp_path / "cache")) == 1
    calls: list[str] = []
    real = sandbox.run_worker

    def counting(module: str, *a: object, **k: object) -> object:
        calls.append(module)
        return real(module, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr("evalgap.verifier.project.signatures.run_worker", counting)
    assert target_signatures(target, cache=cache) == first and calls == []  # answered from the cache
    entry = _entries(tmp_path / "cache")[0]
    entry.write_text(entry.read_text().replace('"f"', '"g"'))  # checksum no longer matches
    again = target_signatures(target, cache=cache)
    assert again == first and cache.rejected == 1
    assert calls in (["signature"], ["signature-served"])  # one probe: spawned, or from a warm fork server
    (spec.parent / "target_mod.py").write_text("def f(n: int, m: int = 0) -> int:\n    return n\n")
    changed = target_signatures(target, cache=cache)  # another source: another key, read afresh
    assert [p.name for p in changed.functions["f"].params] == ["n", "m"] and len(calls) == 2


def _kinds(report: object) -> list[tuple[str, str, str]]:
    return [(f.code, f.kind, f.message) for f in report.findings]  # type: ignore[attr-defined]


def test_analysis_comes_from_the_cache_and_a_corrupt_entry_is_rebuilt(tmp_path: Path) -> None:
    spec = write_case(tmp_path / "c", "def f(n: int) -> int:\n    return n\n", SPEC_EX)
    loaded = load_spec(spec)
    cache = ResultCache(tmp_path / "cache")
    fresh = analyze_spec_cached(loaded.spec, loaded.sources, cache)
    assert _kinds(fresh) == _kinds(analyze_spec(loaded.spec))
    assert len(_entries(tmp_path / "cache")) == 1 and cache.hits == 0
    hit = analyze_spec_cached(loaded.spec, loaded.sources, cache)
    assert hit == fresh and cache.hits == 1
    entry = _entries(tmp_path / "cache")[0]
    data = json.loads(entry.read_text())
    data["payload"]["findings"][0]["kind"] = "conflict"  # tampered: the checksum catches it
    entry.write_text(json.dumps(data))
    rebuilt = analyze_spec_cached(loaded.spec, loaded.sources, cache)
    assert _kinds(rebuilt) == _kinds(fresh) and cache.rejected == 1
    assert ResultCache(tmp_path / "cache").get_payload(json.loads(entry.read_text())["key"]) is not None
    other = {k: v.replace("result >= 0", "result >= 1") for k, v in loaded.sources.items()}
    assert analyze_spec_cached(loaded.spec, other, cache) is not None and len(_entries(tmp_path / "cache")) == 2


def test_a_fully_cached_check_imports_no_heavy_engine(tmp_path: Path) -> None:
    """Second run of the real command: verdicts, signatures and analysis from the cache, and none of z3,
    crosshair, hypothesis, icontract, rich, jinja2 imported (``python -X importtime``)."""
    spec = write_case(tmp_path / "c", "def f(n: int) -> int:\n    return n\n", SPEC_EX)
    # as under an OS sandbox: under python-guard a verified result is never cached (docs/engine.md)
    env = {**os.environ, "EVALGAP_CACHE_DIR": str(tmp_path / "cache"), "EVALGAP_SANDBOX_MODE": "os (test)"}
    code = "import sys; from evalgap.verifier.cli.main import main; sys.argv[0] = 'evalgap'; main()"
    args = ["check", str(spec), "--engines", "crosshair", "--budget", "2", "-f", "json"]
    first = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                           timeout=300)
    second = subprocess.run([sys.executable, "-X", "importtime", "-c", code, *args], capture_output=True,
                            text=True, env=env, timeout=300)
    assert first.returncode == second.returncode
    one, two = json.loads(first.stdout), json.loads(second.stdout)
    assert [r["verdict"] for r in one["requirements"]] == [r["verdict"] for r in two["requirements"]]
    assert all(v["cached"] for r in two["requirements"] for v in r["verdicts"] if v["engine"] != "none")
    assert one["spec_findings"] == two["spec_findings"] and two["spec_findings"]
    imported = {ln.rsplit("|", 1)[-1].strip() for ln in second.stderr.splitlines() if ln.startswith("import time:")}
    assert "evalgap.verifier.cli.main" in imported
    heavy = {"z3", "crosshair", "hypothesis", "icontract", "rich", "jinja2"} & imported
    assert heavy == set(), f"a cached run imported {heavy}"


def test_one_fork_server_per_worker_even_while_they_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prestarted servers count as coming: threads asking at once wait for them instead of starting more."""
    kind = "replay"
    started: list[str] = []
    real = forkserver.ForkServer.__init__

    def init(self: forkserver.ForkServer, k: str, env: dict[str, str]) -> None:
        started.append(k)
        real(self, k, env)

    monkeypatch.setattr(forkserver.ForkServer, "__init__", init)
    pool = forkserver.ServerPool()
    monkeypatch.setattr(forkserver, "_POOL", pool)
    try:
        sandbox.prestart([kind], 2)
        got: list[forkserver.ForkServer] = []
        lock = threading.Lock()

        def take() -> None:
            s = pool.acquire(kind, sandbox._server_env())
            with lock:
                got.append(s)

        threads = [threading.Thread(target=take) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert len(got) == 2 and got[0] is not got[1] and started == [kind, kind]
    finally:
        pool.close()


def test_longest_requirements_start_first_and_results_keep_source_order(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    spec_src = ('spec t "order"\n  target: {target}\n\nfunction small(n: int) -> int\n'
                '  requirement S-1 "small"\n    ensures result == n\n\n'
                'function big(a: int, b: int, c: int) -> int\n  requirement B-1 "big"\n    ensures result == a\n')
    spec = write_case(tmp_path / "c", "def small(n: int) -> int:\n    return n\n\n"
                                      "def big(a: int, b: int, c: int) -> int:\n    return a\n", spec_src)
    started: list[str] = []
    real = E._check_one

    def record(req: object, *a: object, **k: object) -> object:
        started.append(req.id)  # type: ignore[attr-defined]
        return real(req, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(E, "_check_one", record)
    monkeypatch.setattr(E, "_run_engine", lambda engine, req, *a, **k: EngineVerdict(
        engine, Verdict.UNKNOWN, "unsupported: not run in this test"))
    monkeypatch.setattr(E, "warm_up", lambda *a, **k: None)
    from enginehelp import run_check

    results = run_check(spec, budget_s=1.0, jobs=1, engines=("crosshair",))
    assert started == ["B-1", "S-1"] and [r.id for r in results] == ["S-1", "B-1"]
