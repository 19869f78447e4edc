"""The shop's data layer without a copy: the order list is a view over the normalised tables.

``migrate(conn)`` creates the view; the writes are the normalised schema's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

MIGRATION = Path(__file__).with_name("migrations") / "view_0002_order_list.sql"


def migrate(conn: Any) -> None:
    """Create the ``order_list`` view."""
    conn.executescript(MIGRATION.read_text(encoding="utf-8"))


def add_customer(conn: Any, customer_id: int, name: str) -> None:
    """A new customer."""
    conn.execute("INSERT INTO customers (id, name) VALUES (?, ?)", (customer_id, name))


def place_order(conn: Any, order_id: int, customer_id: int, total: int) -> None:
    """A new order."""
    conn.execute("INSERT INTO orders (id, customer_id, total) VALUES (?, ?, ?)", (order_id, customer_id, total))


def rename_customer(conn: Any, customer_id: int, name: str) -> None:
    """A customer changes their name."""
    conn.execute("UPDATE customers SET name = ? WHERE id = ?", (name, customer_id))


def order_list(conn: Any) -> list[tuple[int, str, int]]:
    """Every order with its customer's current name and its total."""
    return conn.execute("SELECT id, customer_name, total FROM order_list ORDER BY id").fetchall()  # type: ignore[no-any-return]
