"""Which isolation the workers of this process run under, for decisions that depend on it.

``python-guard``: the in-process audit-hook guard (:mod:`.guard`), rlimits and a process group only; a
target could then reach anything the user can (e.g. the result cache), so the cache neither stores nor
serves a ``verified`` (:mod:`evalgap.verifier.cache`). The OS sandbox (issue 18, branch ``sandbox``) is to
report its own mode here (``os (...)``) once merged: until then this returns ``python-guard`` unless the
parent's environment says otherwise with ``EVALGAP_SANDBOX_MODE`` (the hand-over point for that branch, and
for tests of the cache under an OS sandbox; a worker cannot change its parent's environment).
"""

from __future__ import annotations

import os

__all__ = ["sandbox_mode", "GUARD_ONLY"]

#: The weakest mode: no OS isolation.
GUARD_ONLY = "python-guard"


def sandbox_mode() -> str:
    """``python-guard``, or the mode named by ``$EVALGAP_SANDBOX_MODE`` (any other non-empty text names an
    OS sandbox, e.g. ``os (landlock, userns)``)."""
    return os.environ.get("EVALGAP_SANDBOX_MODE", "").strip() or GUARD_ONLY
