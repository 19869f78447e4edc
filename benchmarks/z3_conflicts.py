"""Benchmark of the consistency query: requirement sets over shared variables with a planted conflict.

Each set has N requirements on one function with V integer parameters. N - 3 are random linear
constraints ``c1*xi + c2*xj <= d`` that hold at two hidden assignments h (where x1 <= x0) and h'
(where x0 < x1). The planted conflict is P1 ``z > x0``, P2 ``z < x1``, P3 ``x1 <= x0`` (z is the result).
Any two planted ones together with all random ones are satisfiable (by h or h' with a suitable z), so
{P1, P2, P3} is the only minimal unsat core; the benchmark checks that the reported core equals it.

Usage: python benchmarks/z3_conflicts.py [--sizes 100 1000] [--vars 40] [--seed 1]
Times are wall-clock (and process CPU) seconds for parsing, translating to Z3 and the consistency query
with core minimization by deletion, on one core; building the parser (once per process) is excluded.
"""

from __future__ import annotations

import argparse
import random
import time

from evalgap.specs_lang import parse
from evalgap.specs_lang.parser import grammar
from evalgap.translators.to_z3 import build_function_models
from evalgap.verifier.analysis.z3_backend import minimal_core


def make_spec(n: int, nvars: int, rng: random.Random) -> tuple[str, set[str]]:
    """Spec text with ``n`` requirements (3 planted) and the planted IDs."""
    h = [rng.randint(-50, 50) for _ in range(nvars)]
    h[1] = h[0] - rng.randint(0, 5)
    h2 = [v + rng.randint(-3, 3) for v in h]
    h2[1] = h2[0] + rng.randint(2, 6)
    params = ", ".join(f"x{i}: int" for i in range(nvars))
    lines = ["spec bench \"planted conflict\"", f"function f({params}) -> int"]
    planted = {"P-1": "result > x0", "P-2": "result < x1", "P-3": "x1 <= x0"}
    reqs: list[tuple[str, str]] = []
    for k in range(n - 3):
        i, j = rng.sample(range(nvars), 2)
        c1, c2 = rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([-3, -2, -1, 1, 2, 3])
        d = max(c1 * h[i] + c2 * h[j], c1 * h2[i] + c2 * h2[j]) + rng.randint(0, 10)
        reqs.append((f"R-{k}", f"{c1} * x{i} + {c2} * x{j} <= {d}"))
    for pid, text in planted.items():
        reqs.insert(rng.randrange(len(reqs) + 1), (pid, text))
    for rid, text in reqs:
        lines += [f"  requirement {rid} \"generated\"", f"    ensures {text}"]
    return "\n".join(lines) + "\n", set(planted)


def run(n: int, nvars: int, seed: int, timeout_s: float = 60.0) -> dict[str, object]:
    """One benchmark point: seconds and whether the reported core equals the planted conflict."""
    text, planted = make_spec(n, nvars, random.Random(seed))
    grammar()  # the parser is built once per process; not part of the measurement
    c0 = time.process_time()
    t0 = time.perf_counter()
    model = build_function_models(parse(text))[0]
    t1 = time.perf_counter()
    res = minimal_core([(r.id, r.formula) for r in model.requirements if r.formula is not None], timeout_s)
    t2 = time.perf_counter()
    cpu = time.process_time() - c0
    return {"cpu_s": round(cpu, 3), "requirements": n, "variables": nvars, "parse_translate_s": round(t1 - t0, 3),
            "consistency_s": round(t2 - t1, 3), "total_s": round(t2 - t0, 3), "status": res.status,
            "core": list(res.core), "core_equals_planted": set(res.core) == planted, "solver_checks": res.checks}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--vars", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for n in args.sizes:
        r = run(n, args.vars, args.seed)
        print(f"{n:5d} requirements, {args.vars} variables: {r['total_s']:.2f} s total "
              f"(parse+translate {r['parse_translate_s']:.2f} s, consistency {r['consistency_s']:.2f} s, "
              f"{r['solver_checks']} solver checks; CPU {r['cpu_s']:.2f} s), {r['status']}, core {r['core']}, "
              f"equals planted: {r['core_equals_planted']}")


if __name__ == "__main__":
    main()
