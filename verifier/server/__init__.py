"""``evalgap serve``: a long-lived local server that keeps warm workers, and its client.

The server (:func:`serve`) imports the checking pipeline once, starts the fork servers a check needs (CrossHair
under each of its hash seeds, Hypothesis, replay; :mod:`evalgap.verifier.sandbox.forkserver`) and answers
check requests on a Unix socket, one check at a time, so a check pays neither evalgap's imports nor the
servers' start-up. Clients: ``evalgap check --server`` and ``evalgap.check(..., server=True)``.

Where it listens: only on ``$EVALGAP_SERVER_SOCKET`` when set, else ``serve.sock`` in the folder
``$XDG_RUNTIME_DIR/evalgap`` (``$XDG_CACHE_HOME/evalgap/run``, ``~/.cache/evalgap/run`` without a runtime
folder), created with mode 0700; a folder that is not the user's own or is open to others is refused, and the
socket itself is 0600. Both ends read the other's user from the connection (``SO_PEERCRED``): the server
answers only its own user, and the client sends nothing to a listener of another user (a folder swapped
between the folder check and the ``connect``). No TCP. Sandboxed workers cannot reach it: their seccomp filter refuses
``socket(AF_UNIX, ...)``, the audit-hook guard refuses ``connect``, and their network namespace has no
abstract sockets of the host (tests/test_server.py runs a target that tries).

The protocol: one JSON line per message. The client sends a :class:`CheckRequest` (:mod:`.codec`'s JSON of
the dataclass); the server answers with ``{"event": {"type": NAME, "data": EVENT}}`` lines (the
:mod:`evalgap.verifier.events` the library hands to ``on_event``) and one last line, ``{"report": GAPREPORT}``
or ``{"error": {"type": "SpecError", "diagnostics": [...], "sources": {...}}}`` /
``{"error": {"type": "UsageError" | "TargetError" | "CaseError" | "VerifierError", "message": TEXT}}``.
A request whose environment (``PYTHONPATH``, the ``EVALGAP_*`` variables, the evalgap version, the Python
executable) differs from the server's is refused with a message saying which: the server's workers would not
see what the client would.
"""

from evalgap.verifier.server.client import ServerError, check_via_server, socket_path
from evalgap.verifier.server.protocol import CheckRequest

__all__ = ["ServerError", "check_via_server", "socket_path", "CheckRequest", "serve"]


def serve(path: str | None = None, jobs: int | None = None, ready: object = None) -> int:
    """Run the server until SIGINT/SIGTERM (see :func:`evalgap.verifier.server.daemon.serve`)."""
    from evalgap.verifier.server.daemon import serve as _serve

    return _serve(path, jobs, ready)
