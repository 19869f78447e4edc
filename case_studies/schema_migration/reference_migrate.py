"""Reference migration of user records from schema v1 to schema v2.

v1 record: ``(name, height_cm, country)``; ``country == ""`` means the field is missing.
v2 record: ``(first, last, height_mm, country)``: the name is split at its first space, the height is in
millimetres, and a missing country gets the default ``"ZZ"`` (unknown region, ISO 3166 user-assigned).
"""

from __future__ import annotations

DEFAULT_COUNTRY = "ZZ"


def migrate(rows: list[tuple[str, int, str]]) -> list[tuple[str, str, int, str]]:
    """Every v1 row as a v2 row, in the same order."""
    out = []
    for name, height_cm, country in rows:
        first, _, last = name.partition(" ")
        out.append((first, last, height_cm * 10, country if country else DEFAULT_COUNTRY))
    return out
