"""The model the payment provider fake is compared with, written from its documented contract: "charge once
per idempotency key, every time when the key is None" (a list of charges and a set of keys seen)."""

from __future__ import annotations


class LedgerModel:
    """Charges as a plain list of order IDs; a key seen before makes a request a no-op."""

    def __init__(self) -> None:
        self.charged: list[str] = []
        self.keys: set[str] = set()

    def execute(self, order_id: str, amount: int, idempotency_key: str | None) -> None:
        if idempotency_key is not None:
            if idempotency_key in self.keys:
                return None
            self.keys.add(idempotency_key)
        self.charged.append(order_id)
        return None

    def charges(self, order_id: str) -> int:
        return self.charged.count(order_id)
