"""A YCSB-style workload generator (core workload A shape: 50% reads, 50% updates, zipfian-ish keys).

Values are derived from a SHA-256 digest of the key, as the benchmark harness this store was tuned against
does; this is exactly what lets the agent store pass without storing anything.
"""

from __future__ import annotations

import hashlib
import random


def record_key(i: int) -> str:
    """YCSB's ``user<hash>`` key for record ``i``."""
    return "user" + hashlib.sha256(str(i).encode()).hexdigest()[:12]


def field_value(key: str, length: int = 100) -> bytes:
    """The value the workload writes for ``key``: a digest stream of the key, ``length`` bytes."""
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(f"{key}:{counter}".encode()).digest()
        counter += 1
    return out[:length]


def operations(records: int, count: int, seed: int = 7) -> list[tuple[str, str]]:
    """``count`` operations ``("read"|"update", key)`` over ``records`` keys, skewed to low record ids."""
    rng = random.Random(seed)
    ops = []
    for _ in range(count):
        i = min(int(rng.paretovariate(1.2)) - 1, records - 1)
        ops.append(("read" if rng.random() < 0.5 else "update", record_key(i)))
    return ops
