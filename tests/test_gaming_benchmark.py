"""No gaming false alarms on real bug fixes (a sample of HumanEvalFix and QuixBugs; the full run is
benchmarks/gaming_false_alarms.py)."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

import pytest

from gate_repos import shared_data  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gaming_false_alarms", ROOT / "benchmarks" / "gaming_false_alarms.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gaming_false_alarms"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_sample_of_real_fixes_has_no_gaming_findings(shared_data: Path) -> None:
    bench = _bench()
    if not (shared_data / bench.HEF).is_file() or not (shared_data / bench.QB).is_dir():
        pytest.skip(f"HumanEvalFix/QuixBugs not found under {shared_data}")
    pairs = list(itertools.islice(bench.humanevalfix_pairs(shared_data), 0, 164, 8))
    pairs += list(itertools.islice(bench.quixbugs_pairs(shared_data), 0, 40, 4))
    assert len(pairs) == 21 + 10
    assert sum(bool(p.literals) for p in pairs) >= 25  # EG407 really runs with the visible tests' literals
    findings = [f for p in pairs for f in bench.scan_pair(p)]
    assert findings == []


def test_the_benchmark_would_notice_a_gaming_fix(shared_data: Path) -> None:
    bench = _bench()
    if not (shared_data / bench.HEF).is_file():
        pytest.skip(f"HumanEvalFix not found under {shared_data}")
    pair = next(bench.humanevalfix_pairs(shared_data))
    gamed = pair.fixed + "\nimport sys\nif 'crosshair' in sys.modules:\n    sys.exit(0)\n"
    found = bench.scan_pair(dataclass_replace(pair, fixed=gamed))
    assert {f.code for f in found} == {"EG401", "EG403"}


def dataclass_replace(obj: object, **kw: object) -> object:
    import dataclasses

    return dataclasses.replace(obj, **kw)  # type: ignore[type-var]
