"""Agent-written order service: retries a charge on timeout, with a fresh request each time (no
idempotency key). Its tests use the shipped mock network, which never times out."""

from __future__ import annotations

import payment
from payment import PaymentClient, Provider

MAX_ATTEMPTS = 3


def place_order(client: PaymentClient, order_id: str, amount: int) -> str:
    """Charge the order; ``"confirmed"`` on success, ``"failed"`` after ``MAX_ATTEMPTS`` timeouts."""
    for _ in range(MAX_ATTEMPTS):
        try:
            client.charge(order_id, amount)
            return "confirmed"
        except TimeoutError:
            continue
    return "failed"


__all__ = ["place_order", "PaymentClient", "Provider", "payment"]
