"""The 20-function workload of ``benchmarks/engine.py``, two builds side by side against plain ``crosshair check``
(issue 20): paired, alternating runs in one process tree.

``python benchmarks/engine_paired.py --before OTHER_VENV/bin/python --before-repo OTHER_CHECKOUT [--repeat 3]
[--functions 20]`` runs, in each round, ``crosshair check`` of the hand-written module, then the other build and
this one in-process with ``-j 1`` and ``-j 2``, CrossHair only, no cache, and CrossHair's confirming second run
(another hash seed) left out, as the speed issue measures it (``engine.py``'s ``single_seed``); each in a fresh
interpreter with fresh fork servers. It prints each run, the medians of wall and CPU seconds (every process
included) and each median over ``crosshair check``'s. On a shared machine the ratios are the comparable
figures; the verdicts of every run must be the expected ones (else it says so and exits 1).
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

HERE = Path(__file__).resolve().parent

_ONE = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import engine
engine._CPU.setdefault("j%(jobs)d_single_seed", [])
wall, _, verdicts = engine._evalgap(Path(sys.argv[2]), 10.0, %(jobs)d, None, single_seed=True)
print(json.dumps({"wall": wall, "cpu": engine._CPU["j%(jobs)d_single_seed"][-1], "verdicts": verdicts}))
"""


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _raw(folder: Path) -> dict[str, Any]:
    cpu, start = _children_cpu(), time.monotonic()
    subprocess.run([sys.executable, "-m", "crosshair", "check", "--analysis_kind", "icontract", "--report_all",
                    "--per_condition_timeout", "10", "bench_contracts.py"], cwd=folder, capture_output=True,
                   env=_env(), timeout=900)
    return {"wall": time.monotonic() - start, "cpu": _children_cpu() - cpu}


def _build(python: str, benchmarks: Path, folder: Path, jobs: int) -> dict[str, Any]:
    out = subprocess.run([python, "-c", _ONE % {"jobs": jobs}, str(benchmarks), str(folder / "bench.req")],
                         capture_output=True, text=True, env=_env(), timeout=900, cwd=folder)
    if out.returncode != 0:
        raise SystemExit(f"{python}: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    """Print the figures (see the module docstring).

    Args:
        argv: ``--before PYTHON`` and ``--before-repo DIR`` (the other build), ``--repeat N``, ``--functions N``.

    Returns:
        0, or 1 when a run's verdicts differ from the workload's.
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the other build's python")
    ap.add_argument("--before-repo", required=True, type=Path, help="the other build's checkout")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--functions", type=int, default=20)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import engine

    builds = {"before": (args.before, args.before_repo.resolve() / "benchmarks"), "after": (sys.executable, HERE)}
    rows: dict[str, list[dict[str, Any]]] = {}
    bad = []
    print(f"load average {os.getloadavg()[0]:.2f} before; {args.repeat} rounds")
    with tempfile.TemporaryDirectory(prefix="evalgap-paired-engine-") as tmp:
        folder = Path(tmp)
        _, _, expected = engine._workload(folder, args.functions)
        for i in range(args.repeat):
            order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
            runs = [("crosshair check", lambda: _raw(folder))]
            for jobs in (1, 2):
                for name in order:
                    python, bench = builds[name]
                    runs.append((f"{name} -j{jobs}", lambda p=python, b=bench, j=jobs: _build(p, b, folder, j)))
            for label, run in runs:
                r = run()
                rows.setdefault(label, []).append(r)
                if "verdicts" in r and r["verdicts"] != expected:
                    bad.append(f"{label}: {r['verdicts']}")
                print(f"{i} {label:16s} wall {r['wall']:6.2f} s  cpu {r['cpu']:6.2f} s  load "
                      f"{os.getloadavg()[0]:.2f}", flush=True)
    base = {m: statistics.median(r[m] for r in rows["crosshair check"]) for m in ("wall", "cpu")}
    for label, rs in rows.items():
        wall, cpu = statistics.median(r["wall"] for r in rs), statistics.median(r["cpu"] for r in rs)
        print(f"{label:16s} wall {wall:6.2f} s  cpu {cpu:6.2f} s  wall/raw {wall / base['wall']:.2f}  "
              f"cpu/raw {cpu / base['cpu']:.2f}")
    for line in bad:
        print("verdicts differ:", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
