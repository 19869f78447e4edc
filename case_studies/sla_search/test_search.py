"""The tests the agent was evaluated with: correctness on a small corpus and a latency check.

Select the implementation with SEARCH_IMPL=agent_search|reference_search (default reference_search).
"""

import importlib
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("SEARCH_IMPL", "reference_search"))
CORPUS = ["red apple", "green apple", "blue sky", "apple pie"]


def test_finds_matches_in_order() -> None:
    assert impl.search(CORPUS, "apple") == ["red apple", "green apple", "apple pie"]


def test_no_match() -> None:
    assert impl.search(CORPUS, "pear") == []


def test_latency_within_sla() -> None:
    start = time.monotonic()
    impl.search(CORPUS * 1000, "sky")
    assert (time.monotonic() - start) * 1000 < 200
