"""The service as deployed with `agent.toml` (the implementation evalgap checks is this configuration)."""

from __future__ import annotations

from pathlib import Path

from typing import Any

from settings import Rule, ServiceConfig, access, load, nightly

CONFIG_FILE = Path(__file__).with_name("agent.toml")


def config() -> ServiceConfig:
    """The deployed configuration."""
    return load(CONFIG_FILE)


def migrate(conn: Any) -> None:
    """The nightly job on the service's database with this configuration (the operation the `database`
    engine runs between the tables before and after: it always calls it ``migrate(conn)``)."""
    nightly(conn, config())


__all__ = ["config", "access", "migrate", "Rule", "ServiceConfig"]
