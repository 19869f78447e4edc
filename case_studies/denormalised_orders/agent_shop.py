"""The shop's data layer after the agent's denormalisation: orders carry a copy of the customer's name.

``migrate(conn)`` is what the deploy script runs on the production database (schema 0001); the other functions
are the application's writes and its order-list query, each on a DB-API connection.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

MIGRATION = Path(__file__).with_name("migrations") / "agent_0002_denormalise.sql"


def migrate(conn: Any) -> None:
    """Denormalise: copy each order's customer name into ``orders.customer_name``."""
    conn.executescript(MIGRATION.read_text(encoding="utf-8"))


def add_customer(conn: Any, customer_id: int, name: str) -> None:
    """A new customer."""
    conn.execute("INSERT INTO customers (id, name) VALUES (?, ?)", (customer_id, name))


def place_order(conn: Any, order_id: int, customer_id: int, total: int) -> None:
    """A new order, with the customer's name copied in."""
    conn.execute("INSERT INTO orders (id, customer_id, total, customer_name) "
                 "SELECT ?, id, ?, name FROM customers WHERE id = ?", (order_id, total, customer_id))


def rename_customer(conn: Any, customer_id: int, name: str) -> None:
    """A customer changes their name."""
    conn.execute("UPDATE customers SET name = ? WHERE id = ?", (name, customer_id))


def order_list(conn: Any) -> list[tuple[int, str, int]]:
    """Every order with its customer's name and its total (no join: the name is in the row)."""
    return conn.execute("SELECT id, customer_name, total FROM orders ORDER BY id").fetchall()  # type: ignore[no-any-return]
