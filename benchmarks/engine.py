"""Engine benchmarks (not timed unit tests): evalgap's overhead over plain ``crosshair check``, the speed-up
from two workers, and the cached re-run.

Workload: N independent functions (default 8), each with one requirement whose check finishes before its
budget, so that the budget does not decide the time: half are refuted (a bug on one input that CrossHair's
solver finds at once), half are verified (every one of their ``2**bits`` paths exhausted, default 64). The same functions are written once as a
spec + target for evalgap and once as a hand-written icontract module for ``crosshair check
--analysis_kind icontract --report_all``; the verdicts of both sides must be identical, else the
benchmark says so and the figures are not comparable.

Figures (wall-clock seconds; medians over ``--repeat`` runs):

* ``crosshair_check_s``: plain ``crosshair check`` of the hand-written module (one process, all functions);
* ``evalgap_cli_j1_s``: the real command ``evalgap check bench.req --engines crosshair -j 1 --no-cache``
  (a fresh process, like ``crosshair check``: interpreter, imports and fork-server start-up included);
* ``evalgap_j1_s``: the engine called in-process with fresh fork servers, one worker, no cache;
  ``replay_s`` is the part of it spent replaying counterexamples concretely (reported separately);
* ``overhead_pct``: ``(evalgap_cli_j1_s - replay_s) / crosshair_check_s - 1``, and
  ``overhead_with_replay_pct`` without subtracting the replay;
* ``evalgap_j2_s`` and ``speedup_j2``: two workers (in-process, fresh fork servers) over ``evalgap_j1_s``;
* ``cached_rerun_s``: an unchanged re-run answered from the cache (engine call, in-process), and
  ``cached_rerun_cli_s`` the same as the real command (interpreter start, imports, spec parsing, target
  signatures and the Z3 analysis, both from the cache, report rendering included; median of
  ``--cached-repeat`` runs per repeat); ``cached_cli_parse_s`` is the part of a fresh process spent parsing
  the spec (building the lark grammar included; importing the spec language not), and ``cached_cli_heavy_imports`` lists which of z3, crosshair,
  hypothesis, icontract, rich and jinja2 the cached command imported (``python -X importtime``; expected:
  none); ``parse_cpu_s`` is the CPU part of that parse, and ``overhead_cpu_excluding_parse_pct`` the CPU
  overhead without it (the lark grammar build, which branch ``parse`` replaces by a hand-written parser);
* ``sandbox``: the OS sandbox's cost per job (issue 17; goal < 50 ms), paired against the guard-only path
  (``EVALGAP_SANDBOX=python-guard``) in the same run, jobs alternating: the wall time of one trivial job (the
  signature probe of a one-line module) from a small fork server, from a fork server that has imported
  CrossHair and Z3 (a big process: forking it costs more), and spawned (a new ``python``, as without fork
  servers); medians of ``--sandbox-jobs`` jobs each, the difference in ms and the ratio.
  ``--sandbox-only`` measures just this;
* ``second_seed``: the cost of verdict integrity (issue 18) on its own line: ``j1_single_seed_s`` /
  ``cpu_s.j1_single_seed`` is the in-process j1 run with CrossHair's second run under another
  ``PYTHONHASHSEED`` switched off (the benchmark replaces the engine's two-run function by one run; the
  product has no such switch), ``second_seed_wall_pct`` / ``second_seed_cpu_pct`` what the second run adds
  over it, ``overhead_cpu_no_analysis_single_seed_pct`` the CLI's CPU overhead over ``crosshair check``
  without that part (the speed issue's ratio); ``j2_single_seed_s`` the same with two workers, and
  ``wall_ratio_j1_single_seed`` / ``wall_ratio_j2_single_seed`` / ``cpu_ratio_j1_single_seed`` those runs over
  ``crosshair check`` (the speed issue's goal: wall ratio <= 0.6 at ``-j 2``); ``tamper_check_ms`` the scaffold's own cost per CrossHair
  worker run (snapshotting builtins, json, icontract, CrossHair and the check functions, and comparing them
  after the run; measured in a subprocess with CrossHair imported, median of 200) and ``tamper_check_pct``
  that cost over the CPU seconds per requirement of the single-seed j1 run;
* ``overhead_cpu_pct``: CPU seconds (user + system, every process included) of the command over those of
  ``crosshair check``; ``overhead_cpu_no_analysis_pct`` the same for ``--no-analysis`` (the Z3 analysis of
  the spec is work ``crosshair check`` does not do; it runs beside the checks, so it costs CPU, not wall).

Before measuring, evalgap's own sources are compiled to bytecode (``compileall``), as ``pip install``
does: with ``PYTHONDONTWRITEBYTECODE=1`` (set on the project's machines) every command would otherwise
compile them again, which a user's install never does.

Usage: ``python benchmarks/engine.py [--functions 8] [--budget 10] [--repeat 3] [--out FILE.json]``.
The machine's load is recorded too (``os.getloadavg``): on a shared 2-core machine the j2 speed-up is
bounded by what the other processes leave, and wall times stretch with the load; ``cpu_s`` (user + system
CPU seconds of the command and every process it waited for, fork-server children included) and
``overhead_cpu_pct`` compare the two commands independently of the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from evalgap.specs_lang import check_structure, parse_file
from evalgap.verifier.engines import crosshair as C
from evalgap.verifier.engines import run as E
from evalgap.verifier.options import Settings
from evalgap.verifier.sandbox import forkserver, runner
from evalgap.verifier.findings import Verdict
from evalgap.verifier.project.targets import resolve_target


def _workload(folder: Path, n: int, bits: int = 6) -> tuple[Path, Path, dict[str, str]]:
    """Write ``bench_target.py``, ``bench.req`` and ``bench_contracts.py``; return paths and expected verdicts."""
    target, spec, contracts = [], ['spec bench "engine benchmark"', "  target: bench_target.py", ""], [
        "import icontract", ""]
    expected = {}
    for i in range(n):
        if i % 2 == 0:  # refuted: wrong on exactly one input
            k = 1000 + 37 * i
            body = f"    if n == {k}:\n        return n + 1\n    return n\n"
            target.append(f"def f{i}(n: int) -> int:\n{body}\n")
            spec += [f"function f{i}(n: int) -> int", f'  requirement R-{i} "f{i} returns its argument."',
                     "    ensures result == n", ""]
            contracts.append(f"@icontract.ensure(lambda n, result: result == n)\n"
                             f"def f{i}(n: int) -> int:\n{body}\n")
            expected[f"R-{i}"] = "refuted"
        else:  # verified: 2**bits paths (one branch per parameter), all exhausted
            ps = [f"p{j}" for j in range(bits)]
            body = "    n = 0\n" + "".join(f"    if {p} > {j}:\n        n += 1\n" for j, p in enumerate(ps))
            body += "    return n\n"
            sig = ", ".join(f"{p}: int" for p in ps)
            target.append(f"def f{i}({sig}) -> int:\n{body}\n")
            spec += [f"function f{i}({sig}) -> int", f'  requirement R-{i} "f{i} counts at most {bits}."',
                     f"    ensures 0 <= result and result <= {bits}", ""]
            contracts.append(f"@icontract.ensure(lambda {', '.join(ps)}, result: 0 <= result and result <= {bits})\n"
                             f"def f{i}({sig}) -> int:\n{body}\n")
            expected[f"R-{i}"] = "verified"
    (folder / "bench_target.py").write_text("\n".join(target), encoding="utf-8")
    (folder / "bench.req").write_text("\n".join(spec), encoding="utf-8")
    (folder / "bench_contracts.py").write_text("\n".join(contracts), encoding="utf-8")
    return folder / "bench.req", folder / "bench_contracts.py", expected


_CPU: dict[str, list[float]] = {"crosshair": [], "cli_j1": [], "cli_j1_no_analysis": [], "cached_cli": [],
                                "j1": [], "j2": [], "j1_single_seed": [], "j2_single_seed": []}
_LOAD: dict[str, list[float]] = {}
_HEAVY = ("z3", "crosshair", "hypothesis", "icontract", "rich", "jinja2")


def _load(name: str) -> None:
    """Record the 1-minute load average just before measurement ``name``."""
    _LOAD.setdefault(name, []).append(round(os.getloadavg()[0], 2))


def _self_and_children_cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _precompile() -> None:
    """Write bytecode for evalgap's packages (what ``pip install`` does; see the module doc)."""
    import compileall

    from evalgap.verifier.cache import _package_dir

    for pkg in ("evalgap.specs_lang", "evalgap.translators", "evalgap.verifier"):
        compileall.compile_dir(str(_package_dir(pkg)), quiet=1)


def _parse_seconds(spec_path: Path) -> tuple[float, float]:
    """Wall and CPU seconds a fresh process spends parsing ``spec_path`` (the grammar build included, the import
    of the spec language not; medians of 3)."""
    code = ("import sys; from evalgap.specs_lang.loader import load_spec; import time; "
            "t, c = time.perf_counter(), time.process_time(); load_spec(__import__('pathlib').Path(sys.argv[1])); "
            "print(time.perf_counter() - t, time.process_time() - c)")
    runs = [subprocess.run([sys.executable, "-c", code, str(spec_path)], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(3)]
    return statistics.median(float(r[0]) for r in runs), statistics.median(float(r[1]) for r in runs)


def _heavy_imports(spec_path: Path, budget: float, cache_dir: Path) -> list[str]:
    """Which heavy packages a cached ``evalgap check`` imports (``python -X importtime``)."""
    cmd = [sys.executable, "-X", "importtime", "-c", "import sys; from evalgap.verifier.cli.main import main; "
           "sys.argv[0] = 'evalgap'; main()", "check", str(spec_path), "--engines", "crosshair", "--budget",
           str(budget), "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=spec_path.parent,
                         env={**os.environ, "EVALGAP_CACHE_DIR": str(cache_dir)})
    names = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    return sorted(h for h in _HEAVY if h in names)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _crosshair_check(contracts: Path, budget: float) -> tuple[float, dict[str, str]]:
    """Wall seconds of plain ``crosshair check`` and its verdict per function (``f0`` -> verdict)."""
    cmd = [sys.executable, "-m", "crosshair", "check", "--analysis_kind", "icontract", "--report_all",
           "--per_condition_timeout", str(budget), str(contracts)]
    _load("crosshair")
    start, cpu = time.monotonic(), _children_cpu()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=contracts.parent, timeout=600)
    wall = time.monotonic() - start
    _CPU["crosshair"].append(_children_cpu() - cpu)
    verdicts: dict[str, str] = {}
    lines = out.stdout.splitlines()
    src = contracts.read_text().splitlines()
    for line in lines:
        parts = line.split(":", 3)
        if len(parts) < 4 or not parts[1].strip().isdigit():
            continue
        lineno = int(parts[1])
        fn = next((s.split("(")[0][4:] for s in src[lineno - 1:] if s.startswith("def ")), None)
        if fn is None:
            continue
        msg = parts[3]
        if "Confirmed over all paths" in msg:
            verdicts.setdefault(fn, "verified")
        elif "false when calling" in msg or "error" in parts[2]:
            verdicts[fn] = "refuted"
        else:
            verdicts.setdefault(fn, "no-counterexample")
    return wall, verdicts


def _close_pools() -> None:
    """Stop every fork server (the shared pool and the other hash seeds' pools), so their CPU is counted."""
    forkserver.pool().close()
    for pool in list(runner._SEED_POOLS.values()):
        pool.close()


def _tamper_check_ms() -> float:
    """Milliseconds the scaffold's snapshot and check cost in a CrossHair worker (median of 200, subprocess)."""
    code = """
import json, statistics, sys, tempfile, time, os
import crosshair, crosshair.core_and_libs, icontract
from evalgap.verifier.sandbox import channel
d = tempfile.mkdtemp(); req = os.path.join(d, "r.json"); open(req, "w").write("{}")
@icontract.ensure(lambda result: result > 0)
def fn() -> int:
    return 1
times = []
for i in range(200):
    t = time.perf_counter()
    ch = channel.Channel([req, os.path.join(d, "o.json")])
    ch.watch_modules(("crosshair", "icontract"))
    ch.watch_function("h.fn", fn)
    ch.send({"x": 1})
    times.append(time.perf_counter() - t)
print(1000 * statistics.median(times))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    return float(out.stdout.strip())


def _evalgap(spec_path: Path, budget: float, jobs: int, cache_dir: Path | None,
             single_seed: bool = False) -> tuple[float, float, dict[str, str]]:
    """Wall seconds of the engine, seconds spent in replay, and the verdict per requirement (with
    ``single_seed``: CrossHair's second run under another hash seed left out)."""
    parsed = parse_file(spec_path)
    source = spec_path.read_text(encoding="utf-8")
    check_structure(parsed, source)
    target = resolve_target("bench_target.py", spec_path.parent)
    replay_s = [0.0]
    lock = threading.Lock()
    original: Callable[..., Any] = C.replay

    def timed_replay(*args: Any, **kwargs: Any) -> Any:
        t = time.monotonic()
        try:
            return original(*args, **kwargs)
        finally:
            with lock:
                replay_s[0] += time.monotonic() - t

    _close_pools()  # fresh fork servers: their start-up is part of every run, as in the CLI
    C.replay = timed_replay
    two_runs = C.run_crosshair
    if single_seed:
        C.run_crosshair = lambda ob, h, hd, t, o, s, shapes=None: C._one_run(ob, h, hd, t, o, s,
                                                                             runner.HASH_SEEDS[0], shapes)
    try:
        opts = Settings(budget_s=budget, jobs=jobs, engines=("crosshair",), cache=cache_dir is not None,
                        cache_dir=cache_dir)
        cpu = _self_and_children_cpu()
        start = time.monotonic()
        results = E.check_spec(parsed, source, target, opts)
        wall = time.monotonic() - start
        _close_pools()  # reap the servers, so that their CPU time is counted
        if cache_dir is None:
            _CPU.setdefault(f"j{jobs}" + ("_single_seed" if single_seed else ""), []).append(_self_and_children_cpu() - cpu)
    finally:
        C.replay = original
        C.run_crosshair = two_runs
    return wall, replay_s[0], {r.id: (r.verdict or Verdict.UNKNOWN).value for r in results}


def _evalgap_cli(spec_path: Path, budget: float, jobs: int, cache_dir: Path | None = None,
                 analysis: bool = True) -> tuple[float, dict[str, str]]:
    """Wall seconds of the real command ``evalgap check SPEC --engines crosshair -j N`` (``--no-cache``
    unless ``cache_dir`` is given, which then becomes ``EVALGAP_CACHE_DIR``)."""
    exe = Path(sys.executable).parent / "evalgap"
    cmd = [str(exe), "check", str(spec_path), "--engines", "crosshair", "-j", str(jobs),
           "--budget", str(budget), "--format", "json"] + ([] if cache_dir else ["--no-cache"])
    cmd += [] if analysis else ["--no-analysis"]
    env = {**os.environ, **({"EVALGAP_CACHE_DIR": str(cache_dir)} if cache_dir else {})}
    name = "cached_cli" if cache_dir else ("cli_j1" if analysis else "cli_j1_no_analysis")
    _load(name)
    start, cpu = time.monotonic(), _children_cpu()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=spec_path.parent, env=env)
    wall = time.monotonic() - start
    _CPU[name].append(_children_cpu() - cpu)
    report = json.loads(out.stdout)
    return wall, {r["id"]: r["verdict"] for r in report["requirements"]}


def _sandbox_cost(jobs: int) -> dict[str, Any]:
    """Per-job wall time with the OS sandbox and guard-only, paired (see the module docstring)."""
    from evalgap.verifier.sandbox import isolation, workers
    from evalgap.verifier.sandbox.runner import Limits, run_worker

    sig = "evalgap.verifier.project.signature_worker"
    workers.register(workers.WorkerKind("bench-small", sig, ("json",)))
    workers.register(workers.WorkerKind("bench-crosshair", sig, workers.kind("crosshair").preload))
    out: dict[str, Any] = {"mechanisms": "", "jobs": jobs}
    with tempfile.TemporaryDirectory(prefix="evalgap-bench-sandbox-") as tmp:
        Path(tmp, "tiny.py").write_text("def f(n: int) -> int:\n    return n\n", encoding="utf-8")
        request = {"paths": [tmp], "module": "tiny"}
        for label, kind in (("fork_small", "bench-small"), ("fork_crosshair", "bench-crosshair"),
                            ("spawned", "signature")):
            times: dict[str, list[float]] = {"os": [], "guard": []}
            for i in range(jobs + 1):
                for mode in ("os", "guard") if i % 2 else ("guard", "os"):
                    os.environ["EVALGAP_SANDBOX"] = "auto" if mode == "os" else "python-guard"
                    start = time.perf_counter()
                    res = run_worker(kind, request, Limits(cpu_s=10, wall_s=30))
                    took = time.perf_counter() - start
                    if res.status != "ok":
                        raise SystemExit(f"sandbox benchmark: {kind} job {res.status}: {res.stderr[-500:]}")
                    if mode == "os":
                        out["mechanisms"] = res.sandbox
                    if i:  # the first pair starts the servers
                        times[mode].append(took)
            os_ms, guard_ms = (1000 * statistics.median(times[m]) for m in ("os", "guard"))
            out[label] = {"os_ms": round(os_ms, 1), "guard_ms": round(guard_ms, 1),
                          "cost_ms": round(os_ms - guard_ms, 1), "ratio": round(os_ms / guard_ms, 3)}
    os.environ.pop("EVALGAP_SANDBOX", None)
    out["goal"] = "cost_ms < 50"
    out["probe"] = isolation.probe()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--functions", type=int, default=8)
    ap.add_argument("--budget", type=float, default=10.0, help="CrossHair CPU s per requirement/condition")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bits", type=int, default=6, help="verified functions have 2**bits paths")
    ap.add_argument("--cached-repeat", type=int, default=5, help="cached CLI runs per repeat")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("engine_results.json"))
    ap.add_argument("--sandbox-jobs", type=int, default=20, help="jobs per side of the sandbox cost figure")
    ap.add_argument("--sandbox-only", action="store_true", help="measure only the sandbox's cost per job")
    args = ap.parse_args(argv)
    _precompile()
    if args.sandbox_only:
        sandbox = _sandbox_cost(args.sandbox_jobs)
        print(json.dumps({"sandbox": sandbox, "loadavg": [round(x, 2) for x in os.getloadavg()]}, indent=2))
        return 0
    load_start = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="evalgap-bench-") as tmp:
        folder = Path(tmp)
        spec, contracts, expected = _workload(folder, args.functions, args.bits)
        runs: dict[str, list[float]] = {"crosshair": [], "cli_j1": [], "cli_j1_no_analysis": [], "j1": [],
                                        "j1_replay": [], "j2": [], "cached": [], "cached_cli": [],
                                        "j1_single_seed": [], "j2_single_seed": []}
        parity: list[str] = []
        for _ in range(args.repeat):
            cw, cv = _crosshair_check(contracts, args.budget)
            wcli, vcli = _evalgap_cli(spec, args.budget, 1)
            wna, vna = _evalgap_cli(spec, args.budget, 1, analysis=False)
            _load("j1")
            w1, r1, v1 = _evalgap(spec, args.budget, 1, None)
            _load("j1_single_seed")
            ws, _, vs = _evalgap(spec, args.budget, 1, None, single_seed=True)
            runs["j1_single_seed"].append(ws)
            _load("j2_single_seed")
            ws2, _, vs2 = _evalgap(spec, args.budget, 2, None, single_seed=True)
            runs["j2_single_seed"].append(ws2)
            _load("j2")
            w2, _, v2 = _evalgap(spec, args.budget, 2, None)
            cache = folder / f"cache-{len(runs['cached'])}"
            _evalgap_cli(spec, args.budget, 2, cache)  # fills the cache (verdicts, signatures, analysis)
            _CPU["cached_cli"].pop()  # that run was not answered from the cache: not a figure
            _LOAD["cached_cli"].pop()
            wc, _, vc = _evalgap(spec, args.budget, 2, cache)
            vcc: dict[str, str] = {}
            for _ in range(args.cached_repeat):
                wcc, vcc = _evalgap_cli(spec, args.budget, 2, cache)
                runs["cached_cli"].append(wcc)
            runs["crosshair"].append(cw)
            runs["cli_j1"].append(wcli)
            runs["cli_j1_no_analysis"].append(wna)
            runs["j1"].append(w1)
            runs["j1_replay"].append(r1)
            runs["j2"].append(w2)
            runs["cached"].append(wc)
            mapped = {f"R-{k[1:]}": v for k, v in cv.items()}
            for name, got in (("crosshair check", mapped), ("evalgap CLI -j1", vcli), ("evalgap CLI -j1 --no-analysis", vna),
                              ("evalgap -j1", v1), ("evalgap -j1 single seed", vs),
                              ("evalgap -j2 single seed", vs2), ("evalgap -j2", v2), ("evalgap cached", vc),
                              ("evalgap CLI cached", vcc)):
                if got != expected:
                    parity.append(f"{name}: {got} != expected {expected}")
        heavy = _heavy_imports(spec, args.budget, folder / "cache-0")
        sandbox = _sandbox_cost(args.sandbox_jobs)
        parse_s, parse_cpu_s = _parse_seconds(spec)
        tamper_ms = _tamper_check_ms()
    med = {k: statistics.median(v) for k, v in runs.items()}
    cpu = {k: statistics.median(v) for k, v in _CPU.items() if v}
    figures = {
        "workload": {"functions": args.functions, "refuted": sum(v == "refuted" for v in expected.values()),
                     "verified": sum(v == "verified" for v in expected.values()), "budget_s": args.budget,
                     "paths_per_verified_function": 2 ** args.bits,
                     "repeat": args.repeat},
        "crosshair_check_s": round(med["crosshair"], 3),
        "evalgap_cli_j1_s": round(med["cli_j1"], 3),
        "evalgap_j1_s": round(med["j1"], 3),
        "replay_s": round(med["j1_replay"], 3),
        "overhead_pct": round(100 * ((med["cli_j1"] - med["j1_replay"]) / med["crosshair"] - 1), 1),
        "overhead_with_replay_pct": round(100 * (med["cli_j1"] / med["crosshair"] - 1), 1),
        "evalgap_j2_s": round(med["j2"], 3),
        "speedup_j2": round(med["j1"] / med["j2"], 2),
        "speedup_j2_cpu_ratio": round(cpu["j2"] / cpu["j1"], 2),
        "cached_rerun_s": round(med["cached"], 3),
        "cached_rerun_cli_s": round(med["cached_cli"], 3),
        "cached_cli_parse_s": round(parse_s, 3),
        "parse_cpu_s": round(parse_cpu_s, 3),
        "cached_cli_heavy_imports": heavy,
        "cpu_s": {k: round(v, 3) for k, v in cpu.items()},
        "second_seed": {
            "j1_single_seed_s": round(med["j1_single_seed"], 3),
            "j2_single_seed_s": round(med["j2_single_seed"], 3),
            # the speed issue's figures: evalgap without the confirming run against plain crosshair check
            "wall_ratio_j1_single_seed": round(med["j1_single_seed"] / med["crosshair"], 2),
            "wall_ratio_j2_single_seed": round(med["j2_single_seed"] / med["crosshair"], 2),
            "cpu_ratio_j1_single_seed": round(cpu["j1_single_seed"] / cpu["crosshair"], 2),
            "second_seed_wall_pct": round(100 * (med["j1"] / med["j1_single_seed"] - 1), 1),
            "second_seed_cpu_pct": round(100 * (cpu["j1"] / cpu["j1_single_seed"] - 1), 1),
            "overhead_cpu_no_analysis_single_seed_pct": round(
                100 * ((cpu["cli_j1_no_analysis"] - (cpu["j1"] - cpu["j1_single_seed"])) / cpu["crosshair"] - 1), 1),
            "tamper_check_ms": round(tamper_ms, 2),
            "tamper_check_pct": round(100 * tamper_ms / 1000 / (cpu["j1_single_seed"] / max(1, args.functions)), 2),
        },
        "overhead_cpu_pct": round(100 * (cpu["cli_j1"] / cpu["crosshair"] - 1), 1),
        "overhead_cpu_no_analysis_pct": round(100 * (cpu["cli_j1_no_analysis"] / cpu["crosshair"] - 1), 1),
        "overhead_cpu_excluding_parse_pct": round(100 * ((cpu["cli_j1"] - parse_cpu_s) / cpu["crosshair"] - 1), 1),
        "overhead_cpu_no_analysis_excluding_parse_pct": round(
            100 * ((cpu["cli_j1_no_analysis"] - parse_cpu_s) / cpu["crosshair"] - 1), 1),
        "overhead_no_analysis_pct": round(100 * ((med["cli_j1_no_analysis"] - med["j1_replay"]) / med["crosshair"]
                                                 - 1), 1),
        "sandbox": sandbox,
        "verdicts_identical": not parity,
        "parity_problems": parity,
        "runs": {k: [round(x, 3) for x in v] for k, v in runs.items()},
        "targets": {"overhead_pct": "< 15", "speedup_j2": ">= 1.7", "cached_rerun_s": "< 0.5",
                    "sandbox.*.cost_ms": "< 50"},
        "machine": {"cpus": os.cpu_count(), "loadavg_at_start": load_start,
                    "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
                    "loadavg_1min_before_each_run": _LOAD, "python": sys.version.split()[0]},
    }
    text = json.dumps(figures, indent=2) + "\n"
    fd, tmpname = tempfile.mkstemp(prefix=".engine-", dir=args.out.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmpname, 0o644)
    os.replace(tmpname, args.out)
    print(text, end="")
    return 0 if not parity else 1


if __name__ == "__main__":
    sys.exit(main())
