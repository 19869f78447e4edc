"""The reference's migration v1 -> v2 as the deploy script runs it: ``migrations/reference_0002_split_name.sql`` on the
production connection (the schema v1 tables already there): SQLite's spelling, or ``migrations/postgresql/`` on a
PostgreSQL connection."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SQL = Path(__file__).parent / "migrations" / "reference_0002_split_name.sql"
PG_SQL = Path(__file__).parent / "migrations" / "postgresql" / "reference_0002_split_name.sql"


def migrate(conn: sqlite3.Connection) -> None:
    """Run the migration script on ``conn`` (any other connection than sqlite3's is PostgreSQL)."""
    script = SQL if isinstance(conn, sqlite3.Connection) else PG_SQL
    conn.executescript(script.read_text(encoding="utf-8"))
