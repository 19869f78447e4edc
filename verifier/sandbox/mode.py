"""Which isolation the workers of this process run under, for decisions that depend on it.

``python-guard``: the in-process audit-hook guard (:mod:`.guard`), rlimits and a process group only; a
target could then reach anything the user can (e.g. the result cache), so the cache neither stores nor
serves a ``verified`` (:mod:`evalgap.verifier.cache`). Otherwise the OS sandbox's own description
(:func:`evalgap.verifier.sandbox.isolation.probe`, e.g. ``os (landlock abi 7, netns, pidns, ...)``).

Where evalgap cannot isolate jobs itself but runs inside an isolation of the user's making (a throw-away
VM or container with nothing else in it), ``EVALGAP_SANDBOX_MODE`` may name it; it is read only when the
probe finds no OS isolation, from the parent's environment (a worker cannot change it), and it is said in
every report. The tests use it to exercise the cache's OS-sandbox path on any machine.
"""

from __future__ import annotations

import os

from evalgap.verifier.sandbox import isolation

__all__ = ["sandbox_mode", "GUARD_ONLY"]

#: The weakest mode: no OS isolation.
GUARD_ONLY = isolation.GUARD_ONLY


def sandbox_mode() -> str:
    """What a job started now runs under: the OS sandbox's description when it is available, else the
    isolation named by ``$EVALGAP_SANDBOX_MODE``, else ``python-guard``."""
    found = isolation.probe()
    if found != GUARD_ONLY:
        return found
    return os.environ.get("EVALGAP_SANDBOX_MODE", "").strip() or GUARD_ONLY
