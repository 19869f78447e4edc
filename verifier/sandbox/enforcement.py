"""icontract's checks must be on in the processes that replay, test or enumerate (design.md section 8: importing
CrossHair turns them into no-ops): the self-test every such worker runs before it reports."""

from __future__ import annotations

from typing import Any

__all__ = ["contracts_enforced", "enforcement_error"]


def contracts_enforced(process: str) -> str | None:
    """None when icontract's checks run in this process, else why not (design.md section 8: importing
    CrossHair turns them into no-ops, so a worker that replays or tests must never have imported it).

    Args:
        process: the worker's name for the message (``replay``, ``Hypothesis``).
    """
    import icontract

    # the error is built by a function, so icontract raises it without composing a message (which reads and
    # parses this file's source with asttokens: ~13 ms a replay)
    @icontract.ensure(lambda result: result > 0, "evalgap self-test",
                      error=lambda result: icontract.ViolationError("evalgap self-test"))
    def _probe() -> int:
        return 0

    try:
        _probe()
    except icontract.ViolationError:
        return None
    return f"icontract checks are disabled in the {process} process (was CrossHair imported?)"


def enforcement_error(process: str) -> dict[str, Any] | None:
    """A worker's error result when icontract's checks do not run in this process or CrossHair is imported
    (see :func:`contracts_enforced`), else None.

    Args:
        process: the worker's name for the message (``replay``, ``Hypothesis``).
    """
    import sys

    problem = contracts_enforced(process)
    if problem or "crosshair" in sys.modules:
        return {"outcome": "error", "stage": "enforcement", "message": problem or "crosshair imported"}
    return None
