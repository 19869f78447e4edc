"""The payment provider (a fake of the real one) and its client, with a fault-injection point.

``network()`` decides what happens to one request on the wire: ``"ok"`` (delivered, answered),
``"lost_reply"`` (delivered and charged, but the reply is lost: the client sees a timeout),
``"dropped"`` (never delivered: the client sees a timeout) or ``"duplicated"`` (delivered twice, answered
once). The real network does all four; the team's mock (and ``network()`` as shipped) only says ``"ok"``.
The provider deduplicates requests that carry the same idempotency key, as real payment APIs do.
"""

from __future__ import annotations


def network() -> str:
    """What the network does to the next request (the shipped mock: always delivered and answered)."""
    return "ok"


class Provider:
    """The provider's ledger: every charge it executed, as ``(order_id, amount)``."""

    def __init__(self) -> None:
        self.ledger: list[tuple[str, int]] = []
        self._seen: set[str] = set()

    def execute(self, order_id: str, amount: int, idempotency_key: str | None) -> None:
        """Charge once per idempotency key (every time when the key is None)."""
        if idempotency_key is not None:
            if idempotency_key in self._seen:
                return
            self._seen.add(idempotency_key)
        self.ledger.append((order_id, amount))

    def charges(self, order_id: str) -> int:
        """How many times ``order_id`` was charged."""
        return sum(1 for oid, _ in self.ledger if oid == order_id)


class PaymentClient:
    """The client the order service uses."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def charge(self, order_id: str, amount: int, idempotency_key: str | None = None) -> str:
        """Charge ``amount`` for ``order_id``; returns ``"charged"``.

        Raises:
            TimeoutError: no reply arrived (the charge may or may not have been executed).
        """
        fate = network()
        if fate in ("ok", "lost_reply", "duplicated"):
            self.provider.execute(order_id, amount, idempotency_key)
        if fate == "duplicated":
            self.provider.execute(order_id, amount, idempotency_key)
        if fate in ("lost_reply", "dropped"):
            raise TimeoutError("payment provider did not answer")
        return "charged"
