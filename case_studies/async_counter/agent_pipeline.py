"""Agent-written pipeline: one asyncio task per batch, each adding its batch size to a shared counter. ``add``
reads the counter, awaits the audit log, then writes the counter back. Its tests await the steps one after
another, so no other task ever runs in between."""

from __future__ import annotations

import asyncio


class Counter:
    """The shared counter of processed items."""

    def __init__(self) -> None:
        self.value = 0


async def audit(n: int) -> None:
    """Write an audit record (an I/O call: the task is suspended here)."""
    await asyncio.sleep(0)


async def add(counter: Counter, n: int) -> None:
    """Count ``n`` processed items."""
    current = counter.value
    await audit(n)
    counter.value = current + n


async def process(counter: Counter, amounts: list[int]) -> None:
    """Process every batch concurrently."""
    await asyncio.gather(*(add(counter, n) for n in amounts))


def run_pipeline(amounts: list[int]) -> int:
    """Run the pipeline over ``amounts`` on a new event loop; return the final counter."""
    counter = Counter()
    asyncio.run(process(counter, amounts))
    return counter.value
