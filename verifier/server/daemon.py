"""The ``evalgap serve`` process: warm workers, a private Unix socket, one check at a time (see the package doc)."""

from __future__ import annotations

import json
import os
import signal
import socket
import socketserver
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from evalgap.verifier.server.protocol import (MAX_LINE, CheckRequest, ServerError, environment, peer_uid,
                                             secure_folder, socket_path)

__all__ = ["serve", "warm"]

_CHECK_LOCK = threading.Lock()  # one check at a time: the workers share the cores, the check the cwd


def warm(jobs: int) -> None:
    """Import the checking pipeline and start the fork servers a default check uses: CrossHair under the first
    and third hash seeds (the second run of a ``verified``), Hypothesis under the second, replay; ``jobs`` of
    each kind. Also compute evalgap's own fingerprint (every cache key holds it)."""
    import evalgap.verifier.api._core  # noqa: F401 - the imports a check pays
    import evalgap.verifier.report.gap  # noqa: F401
    from evalgap.verifier.cache import evalgap_fingerprint
    from evalgap.verifier.engines.run import warm_up
    from evalgap.verifier.options import Settings
    from evalgap.verifier.sandbox.runner import HASH_SEEDS, prestart

    warm_up(Settings(jobs=jobs), jobs)
    prestart(["crosshair"], jobs, hash_seed=HASH_SEEDS[2])
    prestart(["signature-served"], 1)
    evalgap_fingerprint()


def _send(wfile: Any, message: dict[str, Any]) -> None:
    wfile.write(json.dumps(message).encode() + b"\n")
    wfile.flush()


def _run(req: CheckRequest, send: Callable[[dict[str, Any]], None]) -> None:
    import evalgap
    from evalgap.specs_lang.errors import SpecError
    from evalgap.verifier.errors import VerifierError
    from evalgap.verifier.report.gap import GapReport
    from evalgap.verifier.server.client import EVENT_TYPES
    from evalgap.verifier.server.codec import encode

    mine = environment()
    if req.env != mine:
        diff = sorted(k for k in set(mine) | set(req.env) if mine.get(k) != req.env.get(k))
        send({"error": {"type": "ServerError", "message": "the evalgap server runs in another environment ("
                        + ", ".join(f"{k}: server {mine.get(k)!r}, client {req.env.get(k)!r}" for k in diff)
                        + "); restart `evalgap serve` from this environment, or check without --server"}})
        return

    def on_event(event: Any) -> None:
        name = type(event).__name__
        if name in EVENT_TYPES:
            send({"event": {"type": name, "data": encode(event)}})
    try:
        os.chdir(req.cwd)
        subject: Any = req.spec
        target: Any = req.target
        if req.text is not None:
            subject, target, _ = evalgap.load_spec(req.spec, req.target, opts=req.settings, text=req.text)
        elif Path(req.spec).is_dir() and not any(Path(req.spec).glob("*.req")) and not (
                Path(req.spec) / "case.toml").is_file():
            raise evalgap.UsageError("a folder of cases is checked without --server")
        report = evalgap.check(subject, target, settings=req.settings, on_event=on_event, tests=req.tests)
        assert isinstance(report, GapReport)
        send({"report": encode(report)})
    except SpecError as exc:
        send({"error": {"type": "SpecError", "diagnostics": encode(list(exc.diagnostics)), "sources": exc.sources}})
    except VerifierError as exc:
        send({"error": {"type": type(exc).__name__, "message": str(exc)}})
    except Exception as exc:  # noqa: BLE001 - the server stays up; the client gets a message
        send({"error": {"type": "VerifierError", "message": f"internal error in the server: {type(exc).__name__}: "
                        f"{exc}"}})


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        from evalgap.verifier.server.codec import CodecError, decode

        uid = peer_uid(self.request)
        if uid is not None and uid != os.getuid():  # the socket is 0600 in a 0700 folder: this is a second wall
            _send(self.wfile, {"error": {"type": "ServerError", "message": f"refused: the server answers only "
                                         f"user {os.getuid()}, not {uid}"}})
            return
        line = self.rfile.readline(MAX_LINE)
        if not line:
            return
        try:
            req = decode(CheckRequest, json.loads(line))
        except (ValueError, CodecError) as exc:
            _send(self.wfile, {"error": {"type": "ServerError", "message": f"malformed request: {exc}"}})
            return
        with _CHECK_LOCK:
            try:
                _run(req, lambda m: _send(self.wfile, m))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away; the check's results are in the cache


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def _claim(where: Path) -> None:
    """Remove a stale socket at ``where``; refuse when a server is listening there."""
    if not (where.exists() or where.is_symlink()):
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(where))
    except OSError:
        where.unlink()  # stale: nobody listens
        return
    finally:
        probe.close()
    raise ServerError(f"an evalgap server is already listening on {where}")


def serve(path: str | None = None, jobs: int | None = None, ready: Any = None) -> int:
    """Warm up (:func:`warm`), listen on the socket, answer check requests until SIGINT/SIGTERM.

    Args:
        path: the socket (default :func:`~evalgap.verifier.server.protocol.socket_path`); its folder is made
            0700 (an existing folder must be this user's and closed to others).
        jobs: fork servers of each kind to keep warm (default: the number of cores).
        ready: called with the socket path once it listens (tests; the CLI prints it).

    Returns:
        0 after a clean stop.

    Raises:
        ServerError: the folder is not private, another server listens there, or the path is too long.
    """
    from evalgap.verifier.options import default_jobs

    where = Path(path) if path else socket_path()
    secure_folder(where.parent, create=True)
    _claim(where)
    if len(os.fsencode(str(where))) > 100:
        raise ServerError(f"the socket path {where} is too long for a Unix socket (set EVALGAP_SERVER_SOCKET)")
    warm(jobs or default_jobs())
    old = os.umask(0o177)
    try:
        server = _Server(str(where), _Handler)
    finally:
        os.umask(old)
    os.chmod(where, 0o600)
    stop = threading.Event()

    def on_signal(_signum: int, _frame: Any) -> None:
        stop.set()
        threading.Thread(target=server.shutdown, daemon=True).start()
    signal.set_wakeup_fd(-1)  # the CLI's watcher (cli/main.py) would exit at once, leaving the socket behind
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        if callable(ready):
            ready(where)
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        for s, h in previous.items():
            signal.signal(s, h)
        try:
            where.unlink()
        except OSError:
            pass
        sys.stderr.flush()
    return 0
