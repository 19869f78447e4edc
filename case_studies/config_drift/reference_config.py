"""The service as deployed with `reference.toml` (the implementation evalgap checks is this configuration)."""

from __future__ import annotations

from pathlib import Path

from settings import Rule, ServiceConfig, access, load

CONFIG_FILE = Path(__file__).with_name("reference.toml")


def config() -> ServiceConfig:
    """The deployed configuration."""
    return load(CONFIG_FILE)


__all__ = ["config", "access", "Rule", "ServiceConfig"]
