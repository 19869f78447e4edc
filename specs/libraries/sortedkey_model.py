"""The reference model of ``sortedcontainers.SortedKeyList`` as its documentation states it: a list of values
kept ordered by ``key(value)`` (values with equal keys after the existing ones, as ``bisect_right`` places
them); ``discard`` removes one occurrence if present, ``remove`` raises ValueError when absent, ``count``
counts equal values, ``bisect_left``/``bisect_right`` are the insertion points of ``key(value)`` among the
keys and ``bisect_key_left``/``bisect_key_right`` those of a key."""

from __future__ import annotations

import bisect
from typing import Any, Callable, Iterable


class SortedKeyModel:
    """A plain list ordered by key (the model the spec compares SortedKeyList with)."""

    def __init__(self, iterable: Iterable[Any] | None = None, key: Callable[[Any], Any] = lambda x: x) -> None:
        self._key = key
        self._xs: list[Any] = []
        for v in iterable or ():
            self.add(v)

    def _keys(self) -> list[Any]:
        return [self._key(v) for v in self._xs]

    def add(self, value: Any) -> None:
        self._xs.insert(bisect.bisect_right(self._keys(), self._key(value)), value)

    def discard(self, value: Any) -> None:
        if value in self._xs:
            self._xs.remove(value)

    def remove(self, value: Any) -> None:
        if value not in self._xs:
            raise ValueError(f"{value!r} not in list")
        self._xs.remove(value)

    def count(self, value: Any) -> int:
        return self._xs.count(value)

    def bisect_left(self, value: Any) -> int:
        return bisect.bisect_left(self._keys(), self._key(value))

    def bisect_right(self, value: Any) -> int:
        return bisect.bisect_right(self._keys(), self._key(value))

    def bisect_key_left(self, key: Any) -> int:
        return bisect.bisect_left(self._keys(), key)

    def bisect_key_right(self, key: Any) -> int:
        return bisect.bisect_right(self._keys(), key)
