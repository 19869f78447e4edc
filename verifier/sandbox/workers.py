"""The one registry of worker kinds: every process that imports or runs target code is one of these.

A worker kind has a short name (``crosshair``, ``replay``, ...), the module whose ``main(argv)`` runs in the
sandboxed process, and the heavy modules a fork server of that kind imports up front (empty: no fork server,
one ``python`` per job). Callers address workers by name (:func:`evalgap.verifier.sandbox.runner.run_worker`);
nothing else spells a worker's module path. A package outside the verifier (``evalgap.research``) adds its
own kinds with :func:`register`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = ["WorkerKind", "WORKERS", "register", "kind", "by_module"]


@dataclass(frozen=True)
class WorkerKind:
    """One kind of worker process.

    Attributes:
        name: the short name callers use (``crosshair``).
        module: the module run as ``python -m MODULE REQUEST.json RESULT.json`` (or forked from a server).
        preload: modules a fork server imports before forking jobs; empty means no fork server.
        engine: the engine name this worker serves in ``--engines``, if any.
    """

    name: str
    module: str
    preload: tuple[str, ...] = ()
    engine: str | None = None


_LOCK = threading.Lock()

#: name -> kind. Read-only for callers; add with :func:`register`.
WORKERS: dict[str, WorkerKind] = {}


def register(worker: WorkerKind) -> WorkerKind:
    """Add ``worker`` to the registry (idempotent for the same record).

    Raises:
        ValueError: another kind is registered under the same name.
    """
    with _LOCK:
        old = WORKERS.get(worker.name)
        if old is not None and old != worker:
            raise ValueError(f"worker kind {worker.name!r} is already registered as {old.module}")
        WORKERS[worker.name] = worker
    return worker


def kind(name: str) -> WorkerKind:
    """The registered kind called ``name``.

    Raises:
        KeyError: no such kind (a programming error, not a user error).
    """
    try:
        return WORKERS[name]
    except KeyError:
        raise KeyError(f"no worker kind {name!r}; registered: {', '.join(sorted(WORKERS))}") from None


def by_module(module: str) -> WorkerKind | None:
    """The kind whose module is ``module`` (the fork server is started with a module path), or None."""
    return next((w for w in WORKERS.values() if w.module == module), None)


_V = "evalgap.verifier"
for _w in (
    WorkerKind("crosshair", f"{_V}.engines.crosshair_worker",
               ("crosshair", "crosshair.core_and_libs", "crosshair.condition_parser", "crosshair.options", "z3",
                "icontract", "crosshair.pathing_oracle", f"{_V}.engines.shield"), engine="crosshair"),
    WorkerKind("hypothesis", f"{_V}.engines.hypothesis_worker", ("hypothesis", "hypothesis.strategies", "icontract"),
               engine="hypothesis"),
    WorkerKind("replay", f"{_V}.engines.replay_worker", ("icontract", "datetime", "string", "unicodedata")),
    WorkerKind("enumeration", f"{_V}.engines.enumeration_worker", ("icontract",), engine="enumeration"),
    WorkerKind("schedules", f"{_V}.engines.schedules_worker", ("hypothesis", "hypothesis.strategies", "icontract",
                                                               "asyncio")),
    WorkerKind("database", f"{_V}.engines.database_worker", ("hypothesis", "hypothesis.strategies", "sqlite3")),
    WorkerKind("signature", f"{_V}.project.signature_worker"),
    # the same probe from a small fork server (check's signature probe: warm in `evalgap serve`)
    WorkerKind("signature-served", f"{_V}.project.signature_worker", ("inspect", "ast", "textwrap")),
    WorkerKind("tests", f"{_V}.project.tests_worker"),
    WorkerKind("clause", f"{_V}.authoring.clause_worker"),
    WorkerKind("diffbehavior", f"{_V}.gate.diffbehavior_worker"),
    WorkerKind("diffreplay", f"{_V}.gate.diffreplay_worker"),
):
    register(_w)
