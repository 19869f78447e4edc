"""The order service's tests, against the shipped (well-behaved) mock network.

Select the implementation with ORDERS_IMPL=agent_orders|reference_orders (default reference_orders).
"""

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("ORDERS_IMPL", "reference_orders"))


def test_order_is_confirmed_and_charged() -> None:
    provider = impl.Provider()
    assert impl.place_order(impl.PaymentClient(provider), "o1", 30) == "confirmed"
    assert provider.ledger == [("o1", 30)]


def test_two_orders_are_charged_separately() -> None:
    provider = impl.Provider()
    client = impl.PaymentClient(provider)
    impl.place_order(client, "o1", 30)
    impl.place_order(client, "o2", 12)
    assert provider.charges("o1") == 1 and provider.charges("o2") == 1
