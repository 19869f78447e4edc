"""Reference pipeline step: the read-modify-write of the counter has no suspension point inside it (the
audit call comes first), so no interleaving of the tasks can lose an update on one event loop."""

from __future__ import annotations

from interleave import Checkpoint, run_interleaved


class Counter:
    """The shared counter of processed items."""

    def __init__(self) -> None:
        self.value = 0


async def audit(n: int) -> None:
    """Write an audit record (an I/O call: the task may be suspended here)."""
    await Checkpoint()


async def add(counter: Counter, n: int) -> None:
    """Count ``n`` processed items."""
    await audit(n)
    counter.value += n


def run_pipeline(amounts: list[int], schedule: list[int]) -> int:
    """Run one ``add`` task per amount, interleaved as ``schedule`` says; return the final counter."""
    counter = Counter()
    run_interleaved([add(counter, n) for n in amounts], schedule)
    return counter.value
