"""The agent's own tests: fill, read, overflow with fresh keys (they pass on both implementations)."""

from __future__ import annotations

import pytest

from agent_cache import LRUCache


def test_put_then_get() -> None:
    c = LRUCache()
    c.put(1, 10)
    assert c.get(1) == 10


def test_overflow_evicts_least_recent() -> None:
    c = LRUCache()
    c.put(1, 10)
    c.put(2, 20)
    assert c.get(1) == 10
    c.put(3, 30)
    with pytest.raises(KeyError):
        c.get(2)
    assert c.get(1) == 10 and c.get(3) == 30


def test_missing_key_raises() -> None:
    with pytest.raises(KeyError):
        LRUCache().get(5)
