"""The migration's tests (fixtures from the v1 sample export).

Select the implementation with MIGRATE_IMPL=agent_migrate|reference_migrate (default reference_migrate).
"""

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("MIGRATE_IMPL", "reference_migrate"))


def test_split_name_and_convert_unit() -> None:
    assert impl.migrate([("Ada Lovelace", 165, "GB")]) == [("Ada", "Lovelace", 1650, "GB")]


def test_default_country_for_missing_field() -> None:
    assert impl.migrate([("Alan Turing", 178, "")]) == [("Alan", "Turing", 1780, "ZZ")]


def test_single_word_name() -> None:
    assert impl.migrate([("Plato", 170, "GR")]) == [("Plato", "", 1700, "GR")]


def test_sample_export_size() -> None:
    rows = [("Grace Hopper", 160, "US"), ("Edsger W Dijkstra", 185, "NL"), ("Barbara Liskov", 165, "")]
    assert len(impl.migrate(rows)) == 3
