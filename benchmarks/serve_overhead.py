"""One requirement against a warm ``evalgap serve`` (issue 20): what a check costs beyond CrossHair's own time.

Starts ``evalgap serve -j 1`` on a socket in a private temporary folder, checks once to warm it, then
``--repeat`` times checks a one-requirement ``ensures`` spec on a one-line function through it with the
library client (``evalgap.check(..., server=SOCKET)``; CrossHair only, no cache, no analysis: the
requirement is ``verified``, so CrossHair runs twice, under two hash seeds). Per run:

* ``round trip``: wall seconds of the client call, and CPU seconds of the server's whole process tree (the
  server, its fork servers, and the workers they reaped: ``/proc/PID/stat`` utime+stime+cutime+cstime);
* ``CrossHair's own``: the CPU seconds CrossHair's analysis used inside the two workers (the verdict's
  ``budget.used_s``) and the engine's wall seconds (``elapsed_s``: both worker jobs, fork and sandbox
  included);
* overhead = round trip - CrossHair's own, in CPU (load-independent) and in wall; the CPU part split into the
  server process's own (orchestration, protocol) and the worker jobs' beyond CrossHair's analysis (fork, the OS
  sandbox, the scaffold and its tamper check, the harness and target import; the clock tick is 10 ms).

Goal: overhead under 50 ms. Medians; the load average is printed. Usage:
``python benchmarks/serve_overhead.py [--repeat 10]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import evalgap


def _tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its descendants (with the children each has reaped)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2:].split()
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = sum(int(x) for x in fields[11:15]) / tick
    keep = {pid}
    grew = True
    while grew:
        grew = False
        for p, parent in parents.items():
            if parent in keep and p not in keep:
                keep.add(p)
                grew = True
    return sum(times.get(p, 0.0) for p in keep)


def _own_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` itself (the server process: parsing, harness, report, protocol)."""
    raw = Path("/proc", str(pid), "stat").read_text()
    fields = raw[raw.rindex(")") + 2:].split()
    return sum(int(x) for x in fields[11:13]) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    """Print the figures (see the module docstring).

    Args:
        argv: command-line arguments (``--repeat N``).

    Returns:
        0.
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="evalgap-serve-") as tmp:
        folder = Path(tmp, "w")
        folder.mkdir()
        (folder / "one.py").write_text("def inc(n: int) -> int:\n    return n + 1\n", encoding="utf-8")
        spec = folder / "one.req"
        spec.write_text('spec one "one"\n  target: one.py\n\nfunction inc(n: int) -> int\n'
                        '  requirement I-1 "Adds one."\n    ensures result == n + 1\n', encoding="utf-8")
        run = Path(tmp, "run")
        run.mkdir(mode=0o700)
        sock = run / "serve.sock"
        exe = str(Path(sys.executable).parent / "evalgap")
        server = subprocess.Popen([exe, "serve", "--socket", str(sock), "-j", "1"], stderr=subprocess.DEVNULL)
        try:
            t0 = time.monotonic()
            while not sock.exists():
                if server.poll() is not None:
                    raise SystemExit("evalgap serve ended before listening")
                time.sleep(0.05)
            print(f"server listening after {time.monotonic() - t0:.2f} s wall; load average "
                  f"{os.getloadavg()[0]:.2f}", flush=True)
            opts = evalgap.settings(folder, budget=3, engines="crosshair", cache=False, analysis=False, jobs=1)
            evalgap.check(spec, settings=opts, server=sock)  # warm: the second-seed pool, the caches
            rows = []
            for _ in range(args.repeat):
                c0, p0, w0 = _tree_cpu(server.pid), _own_cpu(server.pid), time.monotonic()
                report = evalgap.check(spec, settings=opts, server=sock)
                wall, cpu = time.monotonic() - w0, _tree_cpu(server.pid) - c0
                v = report.requirements[0].verdicts[0]
                rows.append((wall, cpu, v.budget.used_s or 0.0, v.elapsed_s, report.requirements[0].verdict,
                             _own_cpu(server.pid) - p0))
        finally:
            server.terminate()
            server.wait(timeout=60)
    med = statistics.median
    wall, cpu = med(r[0] for r in rows), med(r[1] for r in rows)
    own_cpu, own_wall = med(r[2] for r in rows), med(r[3] for r in rows)
    print(f"verdicts: {sorted({str(r[4].value) for r in rows if r[4] is not None})}; {args.repeat} runs; medians")
    print(f"round trip             {wall * 1000:8.1f} ms wall {cpu * 1000:8.1f} ms CPU (server tree)")
    print(f"CrossHair's own        {own_wall * 1000:8.1f} ms wall (engine, 2 worker jobs) {own_cpu * 1000:8.1f} ms CPU "
          "(analysis inside the workers)")
    print(f"overhead               {(wall - own_wall) * 1000:8.1f} ms wall (beyond the engine's jobs) "
          f"{med(r[1] - r[2] for r in rows) * 1000:8.1f} ms CPU (beyond CrossHair's analysis); goal < 50 ms")
    own = med(r[5] for r in rows)
    print(f"  of which the server  {own * 1000:8.1f} ms CPU (its own process: parse, harness, report, protocol); the "
          f"worker jobs beyond CrossHair's analysis {(med(r[1] - r[2] for r in rows) - own) * 1000:.1f} ms CPU "
          "(3 forks with the OS sandbox, scaffold, harness import: 2 CrossHair runs and the signature probe)")
    print(f"load average after     {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
