"""Cold ``evalgap check`` of one requirement, two builds side by side (issue 20): paired, alternating runs.

``python benchmarks/startup_paired.py --before /path/to/other/venv/bin/evalgap [--repeat 6]`` runs the
``cold check`` of ``benchmarks/startup_budget.py`` (a one-requirement ``ensures`` spec on a one-line function,
default engines and analysis, a fresh empty result cache each run; Hypothesis's per-user tables built first)
with the other build's ``evalgap`` and with this environment's, alternating which goes first in each pair,
and prints the median wall and CPU of each and the median of the per-pair ratios (this / before). On a shared
machine the ratios are the comparable figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup_budget import _timed, _write  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Print the figures (see the module docstring).

    Args:
        argv: ``--before EXE`` (the other build's ``evalgap``), ``--repeat N`` pairs.

    Returns:
        0.
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--repeat", type=int, default=6)
    args = ap.parse_args(argv)
    after = str(Path(sys.executable).parent / "evalgap")
    print(f"load average {os.getloadavg()[0]:.2f} before; {args.repeat} pairs")
    rows: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="evalgap-paired-") as tmp:
        folder = Path(tmp, "w")
        _write(folder)
        env = dict(os.environ)
        for exe in (args.before, after):  # Hypothesis's per-user tables, built once
            _timed([exe, "check", "one.req", "--no-cache", "-q"], folder, env)
        for i in range(args.repeat):
            order = [("before", args.before), ("after", after)]
            for name, exe in order if i % 2 == 0 else order[::-1]:
                run_env = {**env, "EVALGAP_CACHE_DIR": str(Path(tmp, f"cache-{name}-{i}"))}
                w, c, _ = _timed([exe, "check", "one.req", "-q", "-f", "json"], folder, run_env)
                rows[name].append((w, c))
    med = statistics.median
    for name in ("before", "after"):
        print(f"{name:<7} {med(w for w, _ in rows[name]):7.2f} s wall {med(c for _, c in rows[name]):6.2f} CPU s")
    wr = med(a[0] / b[0] for a, b in zip(rows["after"], rows["before"]))
    cr = med(a[1] / b[1] for a, b in zip(rows["after"], rows["before"]))
    print(f"after / before, median of the pairs: wall {wr:.2f}, CPU {cr:.2f}; load average {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
