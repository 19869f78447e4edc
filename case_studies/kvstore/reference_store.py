"""The reference key-value store: a dictionary that really stores values."""

from __future__ import annotations


class KVStore:
    """Key-value store keyed by str with bytes values."""

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}

    def put(self, key: str, value: bytes) -> None:
        """Store ``value`` under ``key`` (replacing any earlier value)."""
        self._data[key] = bytes(value)

    def get(self, key: str) -> bytes:
        """The value stored under ``key``; KeyError when there is none."""
        return self._data[key]

    def delete(self, key: str) -> None:
        """Remove ``key``; KeyError when it is absent."""
        del self._data[key]
