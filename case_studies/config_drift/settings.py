"""Loading and using the service configuration (a TOML file next to this module).

The syntax schema (what ``load`` enforces): ``retention_days`` and ``backup_retention_days`` are
non-negative integers; ``[[rules]]`` is a list of ``{role, prefix, allow}`` access rules, evaluated first
match wins (the first rule whose role matches and whose ``prefix`` starts the requested path decides).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Rule:
    """One access rule."""

    role: str
    prefix: str
    allow: bool


@dataclass(frozen=True)
class ServiceConfig:
    """A validated configuration."""

    retention_days: int
    backup_retention_days: int
    rules: list[Rule]


def load(path: Path) -> ServiceConfig:
    """Read and validate ``path`` against the syntax schema.

    Raises:
        ValueError: a field is missing or has the wrong type.
    """
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    days = data["retention_days"], data["backup_retention_days"]
    if not all(isinstance(d, int) and d >= 0 for d in days):
        raise ValueError("retention days must be non-negative integers")
    rules = []
    for r in data.get("rules", []):
        if not (isinstance(r["role"], str) and isinstance(r["prefix"], str) and isinstance(r["allow"], bool)):
            raise ValueError(f"malformed rule {r!r}")
        rules.append(Rule(r["role"], r["prefix"], r["allow"]))
    return ServiceConfig(days[0], days[1], rules)


def access(cfg: ServiceConfig, role: str, path: str) -> bool:
    """Whether ``role`` may read ``path``: the first matching rule decides; no match means deny."""
    for r in cfg.rules:
        if r.role == role and path.startswith(r.prefix):
            return r.allow
    return False


def event_path(customer_id: int, pii: bool) -> str:
    """The API path an event is served under: personal data lives under ``/customers/pii``."""
    return f"/customers/pii/{customer_id}" if pii else f"/customers/{customer_id}/events"


def nightly(conn: Any, cfg: ServiceConfig) -> None:
    """The nightly job on the service's database (db/service.sql), driven by the configuration: delete events
    older than ``retention_days`` and backups older than ``backup_retention_days``, then refresh
    ``support_export`` with the events the access rules let ``support`` read."""
    conn.execute("DELETE FROM events WHERE age_days > ?", (cfg.retention_days,))
    conn.execute("DELETE FROM event_backups WHERE age_days > ?", (cfg.backup_retention_days,))
    conn.execute("DELETE FROM support_export")
    for event_id, customer_id, pii in conn.execute("SELECT id, customer_id, pii FROM events").fetchall():
        path = event_path(customer_id, bool(pii))
        if access(cfg, "support", path):
            conn.execute("INSERT INTO support_export (event_id, path, pii) VALUES (?, ?, ?)", (event_id, path, pii))
