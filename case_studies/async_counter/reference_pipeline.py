"""Reference pipeline: the read-modify-write of the counter holds an ``asyncio.Lock`` across the audit call,
so no interleaving of the tasks on one event loop can lose an update."""

from __future__ import annotations

import asyncio


class Counter:
    """The shared counter of processed items, with the lock that guards it."""

    def __init__(self) -> None:
        self.value = 0
        self.lock = asyncio.Lock()


async def audit(n: int) -> None:
    """Write an audit record (an I/O call: the task is suspended here)."""
    await asyncio.sleep(0)


async def add(counter: Counter, n: int) -> None:
    """Count ``n`` processed items."""
    async with counter.lock:
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
