"""The result cache on installed-module targets (issue 20): a cold check and the cached re-runs, in one run.

Workloads (each in a temporary folder, with its own empty result cache):

* ``slugify``: ``specs/libraries/slugify.req`` against the installed ``python-slugify`` (``--target slugify``
  through the spec's ``target:``), and ``string``: a 2-requirement spec on the standard library's
  ``string.capwords``;
* ``egpkg``: a small installed-like package in a temporary site folder on ``PYTHONPATH`` (two functions, one
  requirement each): after a cached re-run, one function is changed and the figure says which requirements
  ran again (goal: only that function's).

Figures, per workload (whole ``evalgap check`` commands, fresh processes, ``--budget 3``, default engines
and analysis): the cold run's wall and CPU seconds (CPU of the command and every process it waited for),
then ``--repeat`` cached re-runs (median wall and CPU, every verdict ``cached``); goal: a cached re-run under
0.5 s wall on an idle machine. The load average is printed before each workload.
Usage: ``python benchmarks/cache_installed.py [--repeat 5]``.
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
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

STRING_SPEC = """\
spec st "string.capwords, as its documentation states it"
  target: string

function capwords(s: str) -> str
  requirement ST-1 "Words are joined by single spaces, so the result has no surrounding whitespace."
    ensures result == result.strip()
  requirement ST-2 "The result is never longer than the text."
    ensures len(result) <= len(s)
"""

PKG = """\
def f(n: int) -> int:
    return n


def g(n: int) -> int:
    return n + 1
"""

PKG_SPEC = """\
spec eg "an installed package"
  target: egpkg

function f(n: int) -> int
  requirement F-1 "Returns its argument."
    ensures result == n

function g(n: int) -> int
  requirement G-1 "Returns one more than its argument."
    ensures result == n + 1
"""


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(spec: Path, env: dict[str, str]) -> tuple[float, float, dict[str, Any]]:
    exe = str(Path(sys.executable).parent / "evalgap")
    c0, w0 = _cpu(), time.monotonic()
    out = subprocess.run([exe, "check", spec.name, "--budget", "3", "-f", "json"], cwd=spec.parent, env=env,
                         capture_output=True, text=True, timeout=900)
    wall, cpu = time.monotonic() - w0, _cpu() - c0
    try:
        report = json.loads(out.stdout)
    except ValueError:
        raise SystemExit(f"no report from {spec}: {out.stderr[-2000:]}") from None
    return wall, cpu, report


def _cached(report: dict[str, Any]) -> dict[str, bool]:
    """Requirement ID -> whether every engine's verdict came from the cache."""
    return {r["id"]: all(v.get("cached") for v in r["verdicts"]) for r in report["requirements"] if r["verdicts"]}


def _verdicts(report: dict[str, Any]) -> str:
    return ", ".join(f"{r['id']} {r['verdict']} [" + "; ".join(f"{v['engine']}: {v['reason'][:60]}" for v in r["verdicts"])
                     + "]" for r in report["requirements"])


def _workload(name: str, spec: Path, env: dict[str, str], repeat: int) -> dict[str, Any]:
    print(f"{name}: load average {os.getloadavg()[0]:.2f}", flush=True)
    wall, cpu, report = _run(spec, env)
    print(f"  cold run          {wall:7.2f} s wall {cpu:6.2f} CPU s  ({_verdicts(report)})", flush=True)
    runs = [_run(spec, env) for _ in range(repeat)]
    walls, cpus = [w for w, _, _ in runs], [c for _, c, _ in runs]
    all_cached = all(all(_cached(r).values()) for _, _, r in runs)
    print(f"  cached re-run     {statistics.median(walls):7.2f} s wall {statistics.median(cpus):6.2f} CPU s  "
          f"(median of {repeat}; min wall {min(walls):.2f}; every verdict cached: {all_cached}; goal < 0.5 s wall idle)",
          flush=True)
    if "PYTHONPATH" not in env or env.get("PYTHONPATH") == os.environ.get("PYTHONPATH"):
        import evalgap  # the same cached check in this process (the library API, as `evalgap serve` runs it)

        saved = os.environ.get("EVALGAP_CACHE_DIR")
        os.environ["EVALGAP_CACHE_DIR"] = env["EVALGAP_CACHE_DIR"]
        try:
            inproc = []
            for _ in range(repeat):
                w0 = time.monotonic()
                rep = evalgap.check(spec, settings=evalgap.settings(spec.parent, budget=3))
                inproc.append(time.monotonic() - w0)
            hit = all(v.cached for r in rep.requirements for v in r.verdicts)
        finally:
            if saved is None:
                del os.environ["EVALGAP_CACHE_DIR"]
            else:
                os.environ["EVALGAP_CACHE_DIR"] = saved
        print(f"  cached, in-process {statistics.median(inproc):6.3f} s wall (evalgap.check; median of {repeat}; "
              f"cached: {hit})", flush=True)
    return {"cold_wall_s": wall, "cold_cpu_s": cpu, "cached_wall_s": statistics.median(walls),
            "cached_cpu_s": statistics.median(cpus), "all_cached": all_cached}


def main(argv: list[str] | None = None) -> int:
    """Print the figures (see the module docstring).

    Args:
        argv: command-line arguments (``--repeat N``).

    Returns:
        0 when every cached re-run was answered from the cache and only the changed function's requirement
        ran again; 1 otherwise.
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    ok = True
    with tempfile.TemporaryDirectory(prefix="evalgap-cache-installed-") as tmp:
        base = {**os.environ}
        work = Path(tmp)
        for name, text in (("slugify", (ROOT / "specs/libraries/slugify.req").read_text(encoding="utf-8")),
                           ("string", STRING_SPEC)):
            folder = work / name
            folder.mkdir()
            (folder / f"{name}.req").write_text(text, encoding="utf-8")
            env = {**base, "EVALGAP_CACHE_DIR": str(work / f"cache-{name}")}
            ok &= _workload(name, folder / f"{name}.req", env, args.repeat)["all_cached"]
        site = work / "site"
        (site / "egpkg").mkdir(parents=True)
        (site / "egpkg" / "__init__.py").write_text(PKG, encoding="utf-8")
        info = site / "egpkg-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: egpkg\nVersion: 1.0\n", encoding="utf-8")
        (info / "top_level.txt").write_text("egpkg\n", encoding="utf-8")
        folder = work / "egpkg"
        folder.mkdir()
        (folder / "eg.req").write_text(PKG_SPEC, encoding="utf-8")
        env = {**base, "EVALGAP_CACHE_DIR": str(work / "cache-egpkg"),
               "PYTHONPATH": os.pathsep.join(p for p in (str(site), base.get("PYTHONPATH", "")) if p)}
        ok &= _workload("egpkg (a package in a site folder on PYTHONPATH)", folder / "eg.req", env, args.repeat)[
            "all_cached"]
        (site / "egpkg" / "__init__.py").write_text(PKG.replace("return n + 1", "return 1 + n"), encoding="utf-8")
        wall, cpu, report = _run(folder / "eg.req", env)
        again = sorted(rid for rid, cached in _cached(report).items() if not cached)
        print(f"  g changed         {wall:7.2f} s wall {cpu:6.2f} CPU s  checked again: {', '.join(again) or 'none'} "
              f"(goal: G-1 only; {_verdicts(report)})", flush=True)
        ok &= again == ["G-1"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
