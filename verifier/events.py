"""Progress events of a check, handed to the ``on_event`` callback of :func:`evalgap.check` and friends.

Events are frozen data. A callback may be called from worker threads, in completion order, so it must be
quick and thread-safe (append to a list, put on a queue, print a line); an exception it raises is not
caught for it and ends the check. Front ends (the CLI's progress line, the pytest plugin, the MCP server, the
language server) all read these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from evalgap.verifier.findings import RequirementResult

__all__ = ["CheckStarted", "RequirementStarted", "RequirementFinished", "CheckFinished", "CaseFinished", "Event",
           "EventSink"]


@dataclass(frozen=True)
class CheckStarted:
    """A check of one spec against one target began.

    Attributes:
        spec_name: the spec's name; target: how the target is shown; requirements: how many will be reported.
    """

    spec_name: str
    target: str
    requirements: int


@dataclass(frozen=True)
class RequirementStarted:
    """The engines started on requirement ``id`` (not sent for informal requirements or cached answers)."""

    id: str


@dataclass(frozen=True)
class RequirementFinished:
    """Requirement ``result.id`` has its overall verdict, the gaming scan applied (before the gap report adds
    traceability and flags)."""

    result: RequirementResult


@dataclass(frozen=True)
class CheckFinished:
    """The check ended; ``elapsed_s`` is wall-clock seconds, ``exit_code`` the report's exit code with the
    default ``--fail-on``."""

    spec_name: str
    elapsed_s: float
    exit_code: int


@dataclass(frozen=True)
class CaseFinished:
    """In a run over a folder of cases, case ``case`` (its folder, relative to the root) is done after
    ``elapsed_s`` wall-clock seconds; ``matched`` tells whether its verdicts matched its manifest."""

    case: str
    elapsed_s: float
    matched: bool


Event = Union[CheckStarted, RequirementStarted, RequirementFinished, CheckFinished, CaseFinished]
#: The type of an ``on_event`` callback.
EventSink = Callable[[Event], None]
