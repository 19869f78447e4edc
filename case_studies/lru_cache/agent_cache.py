"""Agent-written LRU cache (capacity 2 by default): a list of ``(key, value)`` pairs, least recently used
first. Its tests fill the cache, read it and overflow it with fresh keys; none of them writes a key twice."""

from __future__ import annotations


class LRUCache:
    """Keeps the ``capacity`` most recently used keys; reading or writing a key makes it the most recent."""

    def __init__(self, capacity: int = 2) -> None:
        self.capacity = capacity
        self._pairs: list[tuple[int, int]] = []  # least recent first

    def get(self, key: int) -> int:
        """The value of ``key`` (it becomes the most recent). Raises KeyError when absent."""
        for i, (k, v) in enumerate(self._pairs):
            if k == key:
                self._pairs.append(self._pairs.pop(i))
                return v
        raise KeyError(key)

    def put(self, key: int, value: int) -> None:
        """Store ``value`` under ``key``, evicting the least recently used key when the cache is full."""
        if len(self._pairs) >= self.capacity:
            self._pairs.pop(0)
        self._pairs.append((key, value))  # bug: a key written again keeps its older pair, which get finds first

    def __len__(self) -> int:
        return len(self._pairs)
