"""Agent-written pipeline step: reads the shared counter, awaits the audit log, then writes the counter
back. Its tests await the steps one after another, so no other task ever runs in between."""

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
    current = counter.value
    await audit(n)
    counter.value = current + n


def run_pipeline(amounts: list[int], schedule: list[int]) -> int:
    """Run one ``add`` task per amount, interleaved as ``schedule`` says; return the final counter."""
    counter = Counter()
    run_interleaved([add(counter, n) for n in amounts], schedule)
    return counter.value
