"""An asyncio event loop whose choice of the next ready callback is made by a scheduler, for exploring the
interleavings of unmodified coroutines (the ``schedules`` engine, :mod:`evalgap.verifier.engines.schedules`).

:class:`ControlledLoop` runs **one** ready callback per loop iteration (a *step*: a task running from one
``await`` to the next, a future's callback, a ``call_soon``); when several callbacks are ready it asks its
:class:`Chooser` which one runs (index 0 is the callback asyncio's own FIFO order would run next). Time is
virtual: when nothing is ready, the clock jumps to the next timer (``asyncio.sleep(5)`` costs nothing and
timers fire in a reproducible order). Tasks are asyncio's pure-Python ``Task`` so each step can be named
after its task. :func:`controlled` installs an event-loop policy whose new loops are controlled, so code
that calls ``asyncio.run`` itself (the usual entry point) runs on it unchanged.

A *schedule* is the list of choices made at the choice points (steps with more than one ready callback), in
order; replaying it (:class:`Prefix` with the same list) repeats the run step by step when the code is
deterministic apart from the loop's order. Two strategies choose: :class:`Prefix` (given choices, then 0:
the basis of the depth-first search in :func:`explore`) and :class:`PCT` (probabilistic concurrency testing,
Burckhardt et al. 2010: random task priorities and ``depth - 1`` random priority-change points, which finds
a bug of depth ``d`` with probability at least ``1 / (n * k**(d-1))`` per run for ``n`` tasks and ``k`` steps).

This module imports no target code; it runs inside the sandboxed worker that does.
"""

from __future__ import annotations

import asyncio
import asyncio.tasks
import heapq
import linecache
import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Chooser", "Prefix", "PCT", "Run", "ControlledLoop", "controlled", "run_schedule", "explore",
           "Exploration", "StepLimit"]


class StepLimit(BaseException):
    """Raised inside the loop when a run exceeds its step limit (a livelock, or a schedule that never ends)."""


class Chooser:
    """Picks which of the ready callbacks runs; records the choices (the schedule) and their widths."""

    def __init__(self) -> None:
        self.choices: list[int] = []
        self.widths: list[int] = []

    def pick(self, owners: list[int], step: int) -> int:
        """The index (into the FIFO-ordered ready callbacks, whose task numbers are ``owners``) to run."""
        raise NotImplementedError

    def choose(self, owners: list[int], step: int) -> int:
        """:meth:`pick`, recorded (only called when more than one callback is ready)."""
        c = max(0, min(self.pick(owners, step), len(owners) - 1))
        self.choices.append(c)
        self.widths.append(len(owners))
        return c


class Prefix(Chooser):
    """The given choices first, then always 0 (asyncio's own order); beyond ``depth`` choice points, 0."""

    def __init__(self, prefix: list[int], depth: int | None = None) -> None:
        super().__init__()
        self.prefix = list(prefix)
        self.depth = depth

    def pick(self, owners: list[int], step: int) -> int:
        """The next prefix choice, else 0."""
        i = len(self.choices)
        return self.prefix[i] if i < len(self.prefix) else 0


class PCT(Chooser):
    """Probabilistic concurrency testing: the ready callback of the highest-priority task runs; at
    ``depth - 1`` random steps (out of ``steps``) the running task's priority drops below every other."""

    def __init__(self, rng: random.Random, depth: int, steps: int) -> None:
        super().__init__()
        self.rng = rng
        self.prio: dict[int, float] = {}
        self.change = set(rng.sample(range(1, max(2, steps) + 1), min(max(0, depth - 1), max(1, steps))))
        self.low = 0.0

    def pick(self, owners: list[int], step: int) -> int:
        """The index of the ready callback whose task has the highest priority."""
        for o in owners:
            if o not in self.prio:
                self.prio[o] = 1.0 + self.rng.random()
        best = max(range(len(owners)), key=lambda i: self.prio[owners[i]])
        if step in self.change:
            self.low -= 1.0
            self.prio[owners[best]] = self.low
            best = max(range(len(owners)), key=lambda i: self.prio[owners[i]])
        return best


@dataclass
class Run:
    """What one run under a chooser did: ``steps`` (one line per step), and the chooser's schedule."""

    steps: list[str] = field(default_factory=list)
    choices: list[int] = field(default_factory=list)
    widths: list[int] = field(default_factory=list)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


_ASYNCIO_DIR = os.path.join(os.path.dirname(os.path.abspath(asyncio.__file__)), "")


def _where(task: asyncio.Task[Any]) -> str:
    """``file.py:LINE: source`` where ``task`` is suspended (its innermost awaiting coroutine), or ``done``."""
    if task.done():
        return "finished"
    coro: Any = task.get_coro()
    frame = None
    while coro is not None:  # the innermost frame outside asyncio itself (``asyncio.sleep``'s ``yield``)
        f = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if f is None:
            break
        if not f.f_code.co_filename.startswith(_ASYNCIO_DIR):
            frame = f
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    if frame is None:
        return "suspended"
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"suspended at {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}: {line}"


class ControlledLoop(asyncio.SelectorEventLoop):
    """An event loop that runs one ready callback per iteration, chosen by ``chooser`` (module docstring)."""

    def __init__(self, chooser: Chooser, run: Run, max_steps: int) -> None:
        super().__init__()
        self._chooser, self._record, self._max_steps = chooser, run, max_steps
        self._vtime = 0.0
        self._steps = 0
        self._tasks: dict[int, int] = {}
        self.set_task_factory(self._make_task)

    def _make_task(self, loop: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.tasks._PyTask(coro, loop=loop, **kw)  # type: ignore[attr-defined]
        self._tasks[id(task)] = len(self._tasks) + 1
        return task

    def time(self) -> float:
        """The virtual clock (seconds)."""
        return self._vtime

    def _owner(self, handle: Any) -> tuple[int, str, asyncio.Task[Any] | None]:
        cb = getattr(handle, "_callback", None)
        task = getattr(cb, "__self__", None)
        if task is not None and id(task) in self._tasks:
            coro = task.get_coro()
            name = getattr(coro, "__qualname__", None) or type(coro).__name__
            return self._tasks[id(task)], f"task {self._tasks[id(task)]} ({name})", task
        name = (getattr(cb, "__qualname__", None) or type(cb).__name__).replace("<locals>.", "")
        return 1000 + id(cb) % 1000, f"callback {name}", None

    def _run_once(self) -> None:
        if self._steps >= self._max_steps:  # and on every later call (asyncio.run's clean-up runs the loop)
            raise StepLimit(f"more than {self._max_steps} steps")
        ready: Any = self._ready  # type: ignore[attr-defined]
        if not ready:
            sched: list[Any] = self._scheduled  # type: ignore[attr-defined]
            while sched and sched[0]._cancelled:
                heapq.heappop(sched)._scheduled = False
            if sched:
                self._vtime = max(self._vtime, sched[0]._when)
            stopping = self._stopping  # type: ignore[attr-defined]
            events = self._selector.select(0 if sched or stopping else None)  # type: ignore[attr-defined]
            self._process_events(events)  # type: ignore[attr-defined]
            while sched and sched[0]._when <= self._vtime:
                h = heapq.heappop(sched)
                h._scheduled = False
                if not h._cancelled:
                    ready.append(h)
        live = [h for h in ready if not h._cancelled]
        ready.clear()
        if not live:
            return
        self._steps += 1
        owners = [self._owner(h) for h in live]
        i = self._chooser.choose([o[0] for o in owners], self._steps) if len(live) > 1 else 0
        handle = live.pop(i)
        ready.extend(live)
        handle._run()
        _, label, task = owners[i]
        if len(owners) > 1:
            label += f" [{_ordinal(i + 1)} of {len(owners)} ready]"
        elif task is None or "(BaseEventLoop." in label:
            return  # the loop's own bookkeeping, with nothing to choose: not shown
        self._record.steps.append(f"{label}: " + (_where(task) if task is not None else "ran"))


class _Policy(asyncio.DefaultEventLoopPolicy):
    def __init__(self, factory: Callable[[], ControlledLoop]) -> None:
        super().__init__()
        self._factory = factory

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return self._factory()


@contextmanager
def controlled(chooser: Chooser, max_steps: int = 20_000) -> Iterator[Run]:
    """Within the block, every new event loop (``asyncio.run``, ``new_event_loop``) is a
    :class:`ControlledLoop` driven by ``chooser``; yields the :class:`Run` record (filled as the loops run)."""
    run = Run()
    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(_Policy(lambda: ControlledLoop(chooser, run, max_steps)))
    try:
        yield run
    finally:
        asyncio.set_event_loop_policy(old)
        run.choices, run.widths = list(chooser.choices), list(chooser.widths)


def run_schedule(call: Callable[[], Any], chooser: Chooser, max_steps: int = 20_000) -> tuple[Run, BaseException | None]:
    """Run ``call()`` with every event loop controlled by ``chooser``.

    Returns:
        The run record and the exception ``call`` raised (None when it returned); a
        :class:`StepLimit` means the run did not end within ``max_steps`` steps.
    """
    exc: BaseException | None = None
    with controlled(chooser, max_steps) as run:
        try:
            call()
        except BaseException as e:  # noqa: BLE001 - the caller judges what was raised
            exc = e
    return run, exc


@dataclass
class Exploration:
    """The outcome of :func:`explore` for one input.

    Attributes:
        failure: the exception of the first failing schedule (None: none failed), with ``schedule``.
        schedules: runs made (depth-first and PCT); exhaustive: the depth-first search covered every
            schedule within the delay and depth bounds; pruned: a bound cut a branch of that search (so
            PCT ran beyond it); max_width: the most callbacks ready at once.
    """

    failure: BaseException | None = None
    schedule: list[int] = field(default_factory=list)
    schedules: int = 0
    dfs: int = 0
    exhaustive: bool = False
    max_steps_seen: int = 0
    max_width: int = 1
    step_limit: bool = False
    pruned: bool = False

    @property
    def complete(self) -> bool:
        """The depth-first search ran out of schedules and no bound cut a branch: every schedule was run."""
        return self.exhaustive and not self.pruned


def _next_prefix(choices: list[int], widths: list[int], delays: int, depth: int) -> list[int] | None:
    """The next schedule of the depth-first search after ``choices`` (None: the tree is exhausted). A
    choice ``c`` costs ``c`` delays (it passes over ``c`` callbacks asyncio would run first)."""
    for j in range(min(len(choices), depth) - 1, -1, -1):
        if choices[j] + 1 < widths[j] and sum(choices[:j]) + choices[j] + 1 <= delays:
            return choices[:j] + [choices[j] + 1]
    return None


def _pruned(choices: list[int], widths: list[int], delays: int, depth: int) -> bool:
    """Whether the delay or depth bound cut a branch at some choice point of this run."""
    return any(c + 1 < w and (j >= depth or sum(choices[:j]) + c + 1 > delays)
               for j, (c, w) in enumerate(zip(choices, widths)))


def explore(call: Callable[[], Any], max_schedules: int, delays: int, depth: int, pct_runs: int,
            pct_depth: int, seed: int = 0, max_steps: int = 20_000) -> Exploration:
    """Explore schedules of ``call()``: depth-first over the choice points (at most ``delays`` delays in
    total, branching only at the first ``depth`` choice points, at most ``max_schedules`` runs), then, unless
    that search ran every schedule there is, ``pct_runs`` PCT runs of bug depth ``pct_depth``; stops at the first run that
    raises.

    Returns:
        An :class:`Exploration` (see there).
    """
    out = Exploration()
    prefix: list[int] | None = []
    while prefix is not None and out.dfs < max_schedules:
        run, exc = run_schedule(call, Prefix(prefix, depth), max_steps)
        out.schedules += 1
        out.dfs += 1
        out.max_steps_seen = max(out.max_steps_seen, len(run.steps))
        out.max_width = max([out.max_width, *run.widths])
        if isinstance(exc, StepLimit):
            out.step_limit = True
            return out
        if exc is not None:
            out.failure, out.schedule = exc, run.choices
            return out
        out.pruned = out.pruned or _pruned(run.choices, run.widths, delays, depth)
        prefix = _next_prefix(run.choices, run.widths, delays, depth)
    out.exhaustive = prefix is None
    if out.complete:
        return out
    rng = random.Random(seed)
    for _ in range(pct_runs):
        run, exc = run_schedule(call, PCT(rng, pct_depth, out.max_steps_seen), max_steps)
        out.schedules += 1
        if isinstance(exc, StepLimit):
            out.step_limit = True
            return out
        if exc is not None:
            out.failure, out.schedule = exc, run.choices
            return out
    return out
