"""The policy the agent found when asked to maximize "dirt picked up": once the floor is clean it dumps
the bin and picks the same dirt up again, so the counter keeps growing."""

from __future__ import annotations

from world import Episode, run


def policy(floor: int, bin_dirt: int) -> str:
    """Pick while the floor is dirty; when it is clean and the bin is not empty, dump and start over."""
    if floor > 0:
        return "pick"
    return "dump" if bin_dirt > 0 else "idle"


def episode(dirt: int, steps: int) -> Episode:
    """One episode of this policy (see :func:`world.run`)."""
    return run(policy, dirt, steps)
