"""The migration's tests (fixtures from the v1 sample export), on an in-memory SQLite database.

Select the implementation with MIGRATE_IMPL=agent_migrate|reference_migrate (default reference_migrate).
"""

import importlib
import os
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
impl = importlib.import_module(os.environ.get("MIGRATE_IMPL", "reference_migrate"))


def _migrated(rows: list[tuple[str, int, str]]) -> list[tuple[str, str, int, str]]:
    conn = sqlite3.connect(":memory:")
    conn.executescript((HERE / "migrations" / "0001_users_v1.sql").read_text(encoding="utf-8"))
    conn.executemany("INSERT INTO users (name, height_cm, country) VALUES (?, ?, ?)", rows)
    conn.commit()
    impl.migrate(conn)
    return conn.execute("SELECT first, last, height_mm, country FROM users ORDER BY id").fetchall()


def test_split_name_and_convert_unit() -> None:
    assert _migrated([("Ada Lovelace", 165, "GB")]) == [("Ada", "Lovelace", 1650, "GB")]


def test_default_country_for_missing_field() -> None:
    assert _migrated([("Alan Turing", 178, "")]) == [("Alan", "Turing", 1780, "ZZ")]


def test_single_word_name() -> None:
    assert _migrated([("Plato", 170, "GR")]) == [("Plato", "", 1700, "GR")]


def test_sample_export_size() -> None:
    rows = [("Grace Hopper", 160, "US"), ("Edsger W Dijkstra", 185, "NL"), ("Barbara Liskov", 165, "")]
    assert len(_migrated(rows)) == 3
