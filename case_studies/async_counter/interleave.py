"""A deterministic scheduler for coroutines, so that an interleaving is an explicit input.

``run_interleaved(coros, schedule)`` drives the coroutines step by step: at each step it resumes the live
coroutine ``live[schedule[i] % len(live)]`` (after the schedule is used up, the first live one). A step
runs a coroutine up to its next suspension point (an ``await`` of :class:`Checkpoint`, or of anything
built on it). asyncio's event loop treats the same bare ``yield`` as "reschedule me", so the coroutines
run unchanged under ``asyncio.gather``; this scheduler only makes the loop's choice a parameter.
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator
from typing import Any


class Checkpoint:
    """An awaitable that suspends its coroutine once (like ``asyncio.sleep(0)``)."""

    def __await__(self) -> Generator[None, None, None]:
        yield


def run_interleaved(coros: list[Coroutine[Any, Any, Any]], schedule: list[int]) -> None:
    """Run ``coros`` to completion in the order ``schedule`` picks (see the module docstring)."""
    live = list(coros)
    i = 0
    while live:
        k = schedule[i] % len(live) if i < len(schedule) else 0
        i += 1
        try:
            live[k].send(None)
        except StopIteration:
            live.pop(k)
