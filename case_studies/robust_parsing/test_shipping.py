"""The planner's example tests.

Select the implementation with SHIPPING_IMPL=agent_shipping|reference_shipping (default reference_shipping).
"""

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("SHIPPING_IMPL", "reference_shipping"))


def test_eu() -> None:
    assert impl.quote("weight=2kg;dest=EU") == 10


def test_us() -> None:
    assert impl.quote("weight=3kg;dest=US") == 27


def test_zero_weight() -> None:
    assert impl.quote("weight=0kg;dest=EU") == 0
