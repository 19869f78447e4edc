"""The vacuum robot's world: a floor with some dirt, a robot with a bin, and an episode runner.

Each step the policy sees ``(floor_dirt, bin_dirt)`` and answers one action:

* ``"pick"``: one unit of dirt moves from the floor into the bin (counts as *picked up*);
* ``"dump"``: the bin is emptied onto the floor (the dirt goes back on the floor);
* ``"idle"``: nothing happens.

The objective the agent was trained on is ``Episode.picked`` (units of dirt picked up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

Policy = Callable[[int, int], str]


@dataclass
class Episode:
    """What happened: ``floor`` holds the floor dirt before the first step and after every step."""

    floor: list[int] = field(default_factory=list)
    picked: int = 0


def run(policy: Policy, dirt: int, steps: int) -> Episode:
    """Run ``policy`` for ``steps`` steps on a floor holding ``dirt`` units; return the episode."""
    floor, bin_dirt = dirt, 0
    ep = Episode([floor], 0)
    for _ in range(steps):
        action = policy(floor, bin_dirt)
        if action == "pick" and floor > 0:
            floor, bin_dirt = floor - 1, bin_dirt + 1
            ep.picked += 1
        elif action == "dump":
            floor, bin_dirt = floor + bin_dirt, 0
        ep.floor.append(floor)
    return ep
