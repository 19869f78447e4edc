"""Reference order service: retries with the order ID as idempotency key, so the provider executes the
charge at most once however the network behaves."""

from __future__ import annotations

import payment
from payment import PaymentClient, Provider

MAX_ATTEMPTS = 3


def place_order(client: PaymentClient, order_id: str, amount: int) -> str:
    """Charge the order; ``"confirmed"`` on success, ``"failed"`` after ``MAX_ATTEMPTS`` timeouts."""
    for _ in range(MAX_ATTEMPTS):
        try:
            client.charge(order_id, amount, idempotency_key=f"order-{order_id}")
            return "confirmed"
        except TimeoutError:
            continue
    return "failed"


__all__ = ["place_order", "PaymentClient", "Provider", "payment"]
