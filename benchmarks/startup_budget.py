"""Start-up and budget figures of issue 20 (benchmarks, not timed tests): what a first command costs, and how
long ``--budget 3`` takes on a target that never returns.

Figures (medians of ``--repeat`` runs, each a fresh process; CPU = user + system of the command and every
process it waited for, fork-server children included only where they were waited for, see below):

* ``python -c pass``: the interpreter alone, the floor of every command;
* ``evalgap --help``;
* ``cold check``: ``evalgap check one.req`` of a one-requirement ``ensures`` spec on a one-line function with the
  default engines and analysis and a fresh (empty) result cache each run (Hypothesis's per-user unicode tables
  already built, as after a user's first run); goal: under 1.2 s wall on an idle 2-core machine;
* ``endless loop, --budget 3``: ``evalgap check`` of a function ``while True: pass`` with the default engines
  (both stopped by their CPU limits, side by side); goal: a verdict within 6 s wall on an idle machine.

The load average is printed with the figures: on a shared machine wall times stretch with it (and so, less,
do CPU times). Usage: ``python benchmarks/startup_budget.py [--repeat 5] [--skip-loop]``.
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


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and stdout of ``cmd``.

    ``PYTHONDONTWRITEBYTECODE`` is removed from ``env``: with it set (as some shells here do) every process
    compiles evalgap from source, about 0.4 CPU s more per interpreter than an installed package, whose
    ``.pyc`` files pip writes at install time.
    """
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    c0, w0 = _cpu(), time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return time.monotonic() - w0, _cpu() - c0, out.stdout


def _write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "one.py").write_text("def inc(n: int) -> int:\n    return n + 1\n", encoding="utf-8")
    (folder / "one.req").write_text('spec one "one"\n  target: one.py\n\nfunction inc(n: int) -> int\n'
                                    '  requirement I-1 "Adds one."\n    ensures result == n + 1\n', encoding="utf-8")
    (folder / "loop.py").write_text("def spin(n: int) -> int:\n    while True:\n        pass\n", encoding="utf-8")
    (folder / "loop.req").write_text('spec loop "loop"\n  target: loop.py\n\nfunction spin(n: int) -> int\n'
                                     '  requirement L-1 "Returns its input."\n    ensures result == n\n',
                                     encoding="utf-8")


def _line(name: str, runs: list[tuple[float, float]], extra: str = "") -> None:
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    print(f"{name:<28} {wall:7.2f} s wall {cpu:6.2f} CPU s  (min wall {min(w for w, _ in runs):.2f}){extra}",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    """Print the figures (see the module docstring).

    Args:
        argv: command-line arguments (``--repeat N``, ``--skip-loop``).

    Returns:
        0.
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-loop", action="store_true")
    args = ap.parse_args(argv)
    exe = str(Path(sys.executable).parent / "evalgap")
    print(f"load average {os.getloadavg()[0]:.2f} before the runs; {args.repeat} runs each; medians")
    with tempfile.TemporaryDirectory(prefix="evalgap-startup-") as tmp:
        folder = Path(tmp, "w")
        _write(folder)
        env = dict(os.environ)
        # build Hypothesis's per-user unicode tables first (once per user; not part of a cold check)
        subprocess.run([exe, "check", "one.req", "--no-cache", "-f", "json"], cwd=folder, env=env,
                       capture_output=True, timeout=600)
        floor = [_timed([sys.executable, "-c", "pass"], folder, env)[:2] for _ in range(args.repeat)]
        _line("python -c pass", floor)
        helps = [_timed([exe, "--help"], folder, env)[:2] for _ in range(args.repeat)]
        _line("evalgap --help", helps)
        cold, verdicts = [], set()
        for i in range(args.repeat):
            run_env = {**env, "EVALGAP_CACHE_DIR": str(Path(tmp, f"cache{i}"))}
            w, c, out = _timed([exe, "check", "one.req", "-f", "json"], folder, run_env)
            cold.append((w, c))
            verdicts.add(json.loads(out)["requirements"][0]["verdict"] if out.strip() else "no report")
        _line("cold check (1 requirement)", cold, f"  verdict {', '.join(sorted(verdicts))}; goal < 1.2 s wall idle")
        if not args.skip_loop:
            loops, reasons = [], set()
            for _ in range(max(1, args.repeat // 2)):
                w, c, out = _timed([exe, "check", "loop.req", "--budget", "3", "--no-cache", "-f", "json"], folder,
                                   env)
                loops.append((w, c))
                if out.strip():
                    for v in json.loads(out)["requirements"][0]["verdicts"]:
                        reasons.add(f"{v['engine']}: {v['reason'].split(':')[0]} ({v['reason'].split(':')[1].strip()})")
            _line("endless loop, --budget 3", loops, "  goal < 6 s wall idle")
            for r in sorted(reasons):
                print(f"    {r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
