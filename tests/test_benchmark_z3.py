"""The planted-conflict benchmark finds exactly the planted core (small size here; 1,000 in the script)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "z3_conflicts.py"


def test_benchmark_core_equals_planted() -> None:
    spec = importlib.util.spec_from_file_location("z3_conflicts", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for seed in (1, 2):
        r = mod.run(120, 20, seed)
        assert r["status"] == "unsat" and r["core_equals_planted"], r
