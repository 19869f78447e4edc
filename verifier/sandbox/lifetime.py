"""Worker processes never outlive the evalgap run that started them (issue 19).

Workers run in their own session (so a signal to the terminal's process group does not reach them), which
also means nothing kills them when the CLI dies. Three pieces close that gap:

* :func:`die_with_parent` (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, Linux): a spawned worker and every child a
  fork server forks are killed by the kernel the moment their parent dies;
* a fork server polls :func:`parent_gone` while it waits for a child, and exits at the end of its input, so
  a CLI killed with ``SIGKILL`` takes its servers (and through them their workers) along;
* the CLI's ``SIGINT``/``SIGTERM`` handler stops the servers before it exits
  (:func:`evalgap.verifier.sandbox.forkserver.shutdown`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal

__all__ = ["die_with_parent", "parent_gone", "forget"]

_PR_SET_PDEATHSIG = 1


def _load_prctl() -> object | None:
    """libc's ``prctl``, loaded once in the parent: loading a library between ``fork`` and ``exec`` (in a
    ``preexec_fn``) could deadlock on a lock another thread held at the fork."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def die_with_parent(expected_parent: int | None = None) -> bool:
    """Ask the kernel to ``SIGKILL`` this process when its parent dies; when ``expected_parent`` is given and
    the parent already changed (it died before the request), exit at once.

    Returns:
        Whether the request was accepted (False off Linux or without a C library: nothing else changes).
    """
    ok = False
    if _PRCTL is not None:
        try:
            ok = _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0  # type: ignore[operator]
        except (OSError, TypeError, ValueError):
            ok = False
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)
    return ok


def parent_gone(parent: int) -> bool:
    """Whether the process that was our parent (``parent``) has died (we were re-parented)."""
    return os.getppid() != parent


def forget() -> None:
    """In a job's worker, once it runs: drop the cached ``prctl`` (see isolation.forget_exit)."""
    global _PRCTL
    _PRCTL = None
