"""The model an LRU cache of capacity 2 is compared with: a plain list of ``(key, value)`` pairs, least
recently used first, written from the requirement's sentence and nothing else."""

from __future__ import annotations


class LRUModel:
    """Capacity 2; ``get`` raises KeyError for an absent key; reading or writing a key makes it the most recent;
    writing a new key into a full cache drops the least recent one."""

    capacity = 2

    def __init__(self) -> None:
        self.pairs: list[tuple[int, int]] = []

    def _find(self, key: int) -> int:
        for i, (k, _) in enumerate(self.pairs):
            if k == key:
                return i
        return -1

    def get(self, key: int) -> int:
        i = self._find(key)
        if i < 0:
            raise KeyError(key)
        pair = self.pairs.pop(i)
        self.pairs.append(pair)
        return pair[1]

    def put(self, key: int, value: int) -> None:
        i = self._find(key)
        if i >= 0:
            self.pairs.pop(i)
        elif len(self.pairs) >= self.capacity:
            self.pairs.pop(0)
        self.pairs.append((key, value))
