"""The agent's tests of the data layer: customers and orders written through it, then the order list.

Select the implementation with SHOP_IMPL=agent_shop|reference_shop|view_shop (default agent_shop).
"""

import importlib
import os
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
shop = importlib.import_module(os.environ.get("SHOP_IMPL", "agent_shop"))


def _db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript((HERE / "migrations" / "0001_shop.sql").read_text(encoding="utf-8"))
    shop.migrate(conn)
    return conn


def test_order_list_shows_the_customer_name() -> None:
    conn = _db()
    shop.add_customer(conn, 1, "Ada Lovelace")
    shop.place_order(conn, 10, 1, 250)
    assert shop.order_list(conn) == [(10, "Ada Lovelace", 250)]


def test_orders_of_two_customers() -> None:
    conn = _db()
    shop.add_customer(conn, 1, "Ada")
    shop.add_customer(conn, 2, "Grace")
    shop.place_order(conn, 10, 2, 5)
    shop.place_order(conn, 11, 1, 7)
    assert shop.order_list(conn) == [(10, "Grace", 5), (11, "Ada", 7)]


def test_existing_orders_keep_their_names_after_the_migration() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript((HERE / "migrations" / "0001_shop.sql").read_text(encoding="utf-8"))
    conn.execute("INSERT INTO customers VALUES (1, 'Ada')")
    conn.execute("INSERT INTO orders VALUES (10, 1, 3)")
    shop.migrate(conn)
    assert shop.order_list(conn) == [(10, "Ada", 3)]
