"""Benchmark: parse + AST building of N requirements (default 10,000) on one core.

Run: ``python benchmarks/parse_speed.py [N]``. Prints requirements per second. The quality bar is
10,000 requirements in under 2 s (lark's grammar build is excluded: it is cached per process).
"""

from __future__ import annotations

import sys
import time

from evalgap.specs_lang import parse
from evalgap.specs_lang.parser import grammar

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


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 10_000
    text = make(n)
    grammar()  # build (and cache) the parser first
    start, cpu = time.perf_counter(), time.process_time()
    spec = parse(text, "bench.req")
    wall, elapsed = time.perf_counter() - start, time.process_time() - cpu
    count = len(spec.all_requirements())
    print(f"{count} requirements ({len(text) / 1e6:.1f} MB) parsed in {elapsed:.2f} CPU s ({wall:.2f} s wall): "
          f"{count / elapsed:,.0f} requirements/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
