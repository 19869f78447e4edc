"""The registry of engines: each answers "does the code meet this requirement?" for one obligation.

An engine is a small object with a ``name`` (what ``--engines`` and reports call it), whether users select
it (``selectable``), the worker kind it runs on (:mod:`evalgap.verifier.sandbox.workers`), the part of the
settings that changes its verdict (``budget``, part of the cache key) and ``run``. A new engine is one module
plus one line in :func:`_builtin`; ``tests/test_engine_conformance.py`` runs every registered engine on a
known-wrong and a known-right function and checks the promises every engine must keep (a refutation is
replayed concretely, a verdict names its engine, nothing raises for what the target does).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from evalgap.specs_lang import ast as A
from evalgap.verifier.findings import EngineVerdict

if TYPE_CHECKING:
    from evalgap.translators.to_icontract import Harness, Obligation
    from evalgap.verifier.options import Settings
    from evalgap.verifier.project.targets import Target

__all__ = ["EngineJob", "Engine", "register", "get", "names", "selectable_names"]


@dataclass(frozen=True)
class EngineJob:
    """Everything an engine needs for one requirement.

    Attributes:
        req, owner: the requirement and the function/class/spec it belongs to.
        ob: its harness obligation; harness, hdir: the harness module and the folder it is written in.
        target: the code under check; source: the spec text (quoted in evidence); opts: the settings.
        spec: the whole spec (for strategies over constructors, steps and stubs), or None.
    """

    req: A.Requirement
    owner: object
    ob: Obligation
    harness: Harness
    hdir: Path
    target: Target
    source: str
    opts: Settings
    spec: A.Spec | None = None


class Engine(Protocol):
    """What the registry holds (see the module docstring)."""

    name: str
    selectable: bool
    worker: str

    def budget(self, opts: Settings) -> dict[str, Any]:
        """The settings that change this engine's verdict (JSON-serializable; part of the cache key)."""
        ...

    def run(self, job: EngineJob) -> EngineVerdict:
        """The engine's verdict on ``job``; never raises for anything the target code does."""
        ...


_LOCK = threading.Lock()
_ENGINES: dict[str, Engine] = {}


def register(engine: Engine) -> Engine:
    """Add ``engine`` (replacing one of the same name: the last registration wins)."""
    with _LOCK:
        _ENGINES[engine.name] = engine
    return engine


def _builtin() -> None:
    from evalgap.verifier.engines.crosshair import CrossHairEngine
    from evalgap.verifier.engines.examples import ExampleEngine
    from evalgap.verifier.engines.hypothesis import HypothesisEngine
    from evalgap.verifier.engines.database import DatabaseEngine
    from evalgap.verifier.engines.enumeration import EnumerationEngine
    from evalgap.verifier.engines.schedules import SchedulesEngine

    for engine in (CrossHairEngine(), HypothesisEngine(), ExampleEngine(), SchedulesEngine(), DatabaseEngine(),
                   EnumerationEngine()):
        _ENGINES.setdefault(engine.name, engine)


def _all() -> dict[str, Engine]:
    with _LOCK:
        if not _ENGINES or "crosshair" not in _ENGINES:
            _builtin()
        return dict(_ENGINES)


def get(name: str) -> Engine | None:
    """The engine called ``name``, or None."""
    return _all().get(name)


def names() -> tuple[str, ...]:
    """Every registered engine's name."""
    return tuple(_all())


def selectable_names() -> tuple[str, ...]:
    """The engines ``--engines`` accepts."""
    return tuple(n for n, e in _all().items() if e.selectable)
