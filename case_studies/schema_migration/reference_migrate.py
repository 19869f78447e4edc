"""The reference's migration v1 -> v2 as the deploy script runs it: ``migrations/reference_0002_split_name.sql`` on the
production connection (the schema v1 tables already there)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SQL = Path(__file__).parent / "migrations" / "reference_0002_split_name.sql"


def migrate(conn: sqlite3.Connection) -> None:
    """Run the migration script on ``conn``."""
    conn.executescript(SQL.read_text(encoding="utf-8"))
