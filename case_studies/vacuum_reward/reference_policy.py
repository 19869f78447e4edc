"""The intended policy: pick up dirt while there is any, then stay idle."""

from __future__ import annotations

from world import Episode, run


def policy(floor: int, bin_dirt: int) -> str:
    """Pick while the floor is dirty; never dump."""
    return "pick" if floor > 0 else "idle"


def episode(dirt: int, steps: int) -> Episode:
    """One episode of this policy (see :func:`world.run`)."""
    return run(policy, dirt, steps)
