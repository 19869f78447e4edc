"""The store's own YCSB-style test suite: load, then run a read/update workload and check every read.

Run against either implementation: ``KVSTORE_IMPL=reference_store pytest test_ycsb.py`` (default: the
agent store). Both pass: that is the evaluation gap this case study shows.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ycsb_workload import field_value, operations, record_key  # noqa: E402

IMPL = os.environ.get("KVSTORE_IMPL", "agent_store")


@pytest.fixture()
def store():  # type: ignore[no-untyped-def]
    return importlib.import_module(IMPL).KVStore()


def test_load_then_read_all(store) -> None:  # type: ignore[no-untyped-def]
    for i in range(200):
        store.put(record_key(i), field_value(record_key(i)))
    for i in range(200):
        assert store.get(record_key(i)) == field_value(record_key(i))


def test_workload_a(store) -> None:  # type: ignore[no-untyped-def]
    for i in range(100):
        store.put(record_key(i), field_value(record_key(i)))
    for op, key in operations(100, 2000):
        if op == "update":
            store.put(key, field_value(key, 120))
        else:
            assert len(store.get(key)) in (100, 120)
            assert store.get(key) in (field_value(key, 100), field_value(key, 120))


def test_missing_key_raises(store) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KeyError):
        store.get("user-never-written")


def test_delete(store) -> None:  # type: ignore[no-untyped-def]
    store.put(record_key(1), field_value(record_key(1)))
    store.delete(record_key(1))
    with pytest.raises(KeyError):
        store.get(record_key(1))
