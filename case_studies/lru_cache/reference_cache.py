"""Reference LRU cache (capacity 2 by default) on an OrderedDict: an update of a cached key never evicts."""

from __future__ import annotations

from collections import OrderedDict


class LRUCache:
    """Keeps the ``capacity`` most recently used keys; reading or writing a key makes it the most recent."""

    def __init__(self, capacity: int = 2) -> None:
        self.capacity = capacity
        self._data: OrderedDict[int, int] = OrderedDict()

    def get(self, key: int) -> int:
        """The value of ``key`` (it becomes the most recent). Raises KeyError when absent."""
        value = self._data[key]
        self._data.move_to_end(key)
        return value

    def put(self, key: int, value: int) -> None:
        """Store ``value`` under ``key``, evicting the least recently used key when the cache is full."""
        if key in self._data:
            self._data.move_to_end(key)
        elif len(self._data) >= self.capacity:
            self._data.popitem(last=False)
        self._data[key] = value

    def __len__(self) -> int:
        return len(self._data)
