"""Benchmark: parse + AST building of N requirements (default 10,000) on one core.

Run: ``python benchmarks/parse_speed.py [N] [--lark N_LARK]``. Prints requirements per second of
:func:`evalgap.specs_lang.parse` (the fast parser) and, for comparison, of the lark path on ``N_LARK``
requirements (default 1,000; 0 skips it). The quality bar is 10,000 requirements in under 2 CPU seconds.
CPU time is ``time.process_time`` (one process, one core). The machine's speed is printed as the CPU time
of a plain Python loop of 10**7 additions (about 0.4 s on an unloaded 2020s laptop core), so figures from a
loaded machine can be judged. lark's grammar build is excluded (it is cached per process and on disk).

Measured on the project's shared 2-core AMD EPYC machine (Python 3.11.7, other users' jobs running: load
average 2.1-2.5), 10 runs: 10,000 requirements in 1.08-1.83 CPU s, median 1.14 (5,500-9,200 requirements/s);
the calibration loop took 0.39-0.68 s, and the runs above 1.6 s were those where it took 0.64-0.68 s. Five
runs of the parser before the speed work (commit 842c53f), alternating with five of these, took 1.50-2.20 CPU
s, median 1.89. The lark path parses about 350 requirements/s, some 25x slower. ``docs/language.md``
(Parsing) says where the time goes.
"""

from __future__ import annotations

import sys
import time

from evalgap.specs_lang import parse
from evalgap.specs_lang.larkparse import grammar, parse_lark

BLOCK = '''
requirement R-{i} "A value written with put is returned unchanged by get ({i})."
  scenario (key: str, value: bytes, n: int in 0..1000):
    s = KVStore()
    s.put(key, value)
    expect s.get(key) == value and 0 <= n < 1000

function f{i}(xs: list[int] len 1..50, k: int) -> int
  requirement F-{i} "Returns the maximum element of the list."
    ensures result in xs and (forall x in xs: x <= result + k * 2)
'''


def make(n: int) -> str:
    """Spec text with ``n`` requirements (half scenarios, half function postconditions)."""
    return 'spec bench "Benchmark"\n  target: bench.py\n' + "".join(BLOCK.format(i=i) for i in range(n // 2))


def calibration() -> float:
    """CPU seconds of a plain Python loop of 10**7 additions (the machine's speed)."""
    start, total = time.process_time(), 0
    for i in range(10**7):
        total += i
    return time.process_time() - start


def measure(fn: object, text: str) -> tuple[int, float, float]:
    """(requirements, CPU s, wall s) of ``fn(text, "bench.req")``."""
    start, cpu = time.perf_counter(), time.process_time()
    spec = fn(text, "bench.req")  # type: ignore[operator]
    elapsed, wall = time.process_time() - cpu, time.perf_counter() - start
    return len(spec.all_requirements()), elapsed, wall


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if a != "--lark"]
    n = int(args[0]) if args else 10_000
    n_lark = int(argv[argv.index("--lark") + 1]) if "--lark" in argv else 1_000
    if "--lark" in argv:
        args.remove(str(n_lark))
        n = int(args[0]) if args else 10_000
    print(f"machine: a loop of 10**7 additions takes {calibration():.2f} CPU s")
    text = make(n)
    count, cpu, wall = measure(parse, text)
    print(f"fast parser: {count} requirements ({len(text) / 1e6:.1f} MB) parsed in {cpu:.2f} CPU s "
          f"({wall:.2f} s wall): {count / cpu:,.0f} requirements/s")
    if n_lark:
        grammar()  # build (and cache) the lark parser first
        count, cpu, wall = measure(parse_lark, make(n_lark))
        print(f"lark parser: {count} requirements parsed in {cpu:.2f} CPU s ({wall:.2f} s wall): "
              f"{count / cpu:,.0f} requirements/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
