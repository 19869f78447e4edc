"""Benchmark: parsing (lark LALR + AST build) and checking specs of 100, 1,000 and 10,000 requirements.

Run: ``python benchmarks/parse_speed.py [N ...] [--runs R]`` (default sizes 100 1000 10000, best of R=3 runs
per size). For each size it prints the CPU seconds (``time.process_time``: one process, one core) and wall
seconds of :func:`evalgap.specs_lang.parse` (text to typed AST with spans) and of parse +
:func:`evalgap.specs_lang.check.check_spec` without a target (structure, names and types: what
``evalgap lint SPEC`` does with no ``--target``). The machine's speed is printed first as the CPU time of a
plain Python loop of 10**7 additions (about 0.4 s on an unloaded 2020s laptop core), so figures from a
loaded machine can be judged. lark's grammar build is excluded (once per process, and cached on disk).

Goal: 1,000 requirements parsed and checked in under 1 CPU s on an idle 2-core machine. Measured figures:
``docs/language.md`` (Parsing).
"""

from __future__ import annotations

import sys
import time

from evalgap.specs_lang import parse
from evalgap.specs_lang.check import check_spec
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
    """Spec text with ``n`` requirements (half scenarios, half function postconditions).

    Args:
        n: the number of requirements (rounded down to an even number).

    Returns:
        The ``.req`` text.
    """
    return 'spec bench "Benchmark"\n  target: bench.py\n' + "".join(BLOCK.format(i=i) for i in range(n // 2))


def calibration() -> float:
    """CPU seconds of a plain Python loop of 10**7 additions (the machine's speed).

    Returns:
        The CPU seconds.
    """
    start, total = time.process_time(), 0
    for i in range(10**7):
        total += i
    return time.process_time() - start


def measure(text: str, check: bool) -> tuple[int, float, float]:
    """Parse (and check) ``text`` once.

    Args:
        text: the spec text.
        check: also run :func:`check_spec` without a target.

    Returns:
        (requirements, CPU s, wall s).
    """
    start, cpu = time.perf_counter(), time.process_time()
    spec = parse(text, "bench.req")
    if check:
        check_spec(spec, text)
    elapsed, wall = time.process_time() - cpu, time.perf_counter() - start
    return len(spec.all_requirements()), elapsed, wall


def main(argv: list[str]) -> int:
    """Print the calibration and the figures for each size.

    Args:
        argv: ``sys.argv``.

    Returns:
        0.
    """
    args = argv[1:]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    sizes = [int(a) for a in args] or [100, 1_000, 10_000]
    grammar()  # build (or load from lark's cache) the parser first: not part of the measurement
    print(f"machine: a loop of 10**7 additions takes {calibration():.2f} CPU s; best of {runs} runs")
    for n in sizes:
        text = make(n)
        for check, label in ((False, "parse        "), (True, "parse + check")):
            results = [measure(text, check) for _ in range(runs)]
            count, cpu, wall = min(results, key=lambda r: r[1])
            print(f"{count:>6} requirements ({len(text) / 1e6:.2f} MB) {label}: {cpu:.3f} CPU s "
                  f"({wall:.3f} s wall), {count / cpu:,.0f} requirements/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
