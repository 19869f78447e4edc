"""The evaluator the agent optimized against: reward tests on a few rooms.

Select the implementation with VACUUM_IMPL=agent_policy|reference_policy (default reference_policy).
"""

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("VACUUM_IMPL", "reference_policy"))


def test_picks_up_all_dirt_in_a_small_room() -> None:
    assert impl.episode(3, 10).picked >= 3


def test_clean_floor_at_the_end_of_a_long_episode() -> None:
    ep = impl.episode(5, 10)
    assert ep.picked >= 5 and min(ep.floor) == 0


def test_nothing_to_do_on_a_clean_floor() -> None:
    assert impl.episode(0, 5).picked == 0
