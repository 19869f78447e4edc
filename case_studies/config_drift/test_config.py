"""The config's smoke tests: it loads against the syntax schema and support can read customer records.

Select the configuration with CONFIG_IMPL=agent_config|reference_config (default reference_config).
"""

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("CONFIG_IMPL", "reference_config"))


def test_config_loads() -> None:
    cfg = impl.config()
    assert cfg.retention_days == 30 and cfg.backup_retention_days >= 0


def test_support_reads_customer_records() -> None:
    assert impl.access(impl.config(), "support", "/customers/42/orders")


def test_unknown_role_is_denied() -> None:
    assert not impl.access(impl.config(), "intern", "/customers/42/orders")
