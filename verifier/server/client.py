"""The client of ``evalgap serve``: send one :class:`CheckRequest`, relay its events, rebuild its report."""

from __future__ import annotations

import errno
import json
import os
import socket
from pathlib import Path
from typing import Any

from evalgap.verifier.events import EventSink
from evalgap.verifier.options import Settings
from evalgap.verifier.server.protocol import (MAX_LINE, CheckRequest, ServerError, environment, peer_uid,
                                              secure_folder, socket_path)

__all__ = ["check_via_server", "ServerError", "socket_path", "connect", "EVENT_TYPES"]


def _event_types() -> dict[str, type]:
    from evalgap.verifier import events

    return {c.__name__: c for c in (events.CheckStarted, events.RequirementStarted, events.RequirementFinished,
                                    events.CheckFinished, events.CaseFinished)}


EVENT_TYPES = _event_types()


def connect(path: Path | None = None, timeout: float | None = None) -> socket.socket:
    """A connected socket to the server at ``path`` (default :func:`socket_path`).

    Raises:
        ServerError: the folder is not private, the socket is absent, or it is stale (no server behind it).
    """
    where = path or socket_path()
    secure_folder(where.parent, create=False)
    if not where.exists():
        raise ServerError(f"no evalgap server: {where} does not exist (start one with `evalgap serve`)")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(str(where))
    except OSError as exc:
        s.close()
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
            raise ServerError(f"stale server socket {where}: no server is listening (it ended without removing "
                              "it); start one with `evalgap serve`, which replaces it") from None
        raise ServerError(f"cannot connect to the evalgap server at {where}: {exc.strerror}") from None
    uid = peer_uid(s)
    if uid is not None and uid != os.getuid():
        s.close()
        raise ServerError(f"the process listening on {where} runs as user {uid}, not as this user "
                          f"({os.getuid()}); not sending it a check")
    return s


def check_via_server(spec: str | os.PathLike[str], target: str | os.PathLike[str] | None, settings: Settings,
                     on_event: EventSink | None = None, tests: str | os.PathLike[str] | None = None,
                     text: str | None = None, path: Path | None = None) -> Any:
    """:func:`evalgap.check` run by the server at ``path`` (default :func:`socket_path`).

    Args:
        spec, target, settings, on_event, tests: as for :func:`evalgap.check` (``settings`` resolved already).
        text: the spec's text (``spec`` is then its display name).
        path: the server's socket.

    Returns:
        The :class:`~evalgap.verifier.report.gap.GapReport` the server built.

    Raises:
        ServerError: no usable server (see :func:`connect`), it refused the request or broke off.
        SpecError, VerifierError: what :func:`evalgap.check` would raise, as the server raised it.
    """
    from evalgap.verifier.server.codec import decode, encode

    def absolute(p: str | os.PathLike[str] | None) -> str | None:
        return None if p is None else os.fspath(p) if text is not None and p is spec else str(Path(p).absolute())

    tgt = os.fspath(target) if target is not None else None
    if tgt is not None and (tgt.endswith(".py") or "/" in tgt or os.sep in tgt):
        tgt = str(Path(tgt).absolute())
    req = CheckRequest(spec=absolute(spec) or "", target=tgt, settings=settings, cwd=os.getcwd(), text=text,
                       tests=absolute(tests), env=environment())
    with connect(path) as s:
        s.sendall(json.dumps(encode(req)).encode() + b"\n")
        stream = s.makefile("rb")
        while True:
            line = stream.readline(MAX_LINE)
            if not line:
                raise ServerError("the evalgap server closed the connection before sending the report")
            try:
                msg = json.loads(line)
            except ValueError:
                raise ServerError("the evalgap server sent a malformed line") from None
            if "event" in msg:
                if on_event is not None:
                    ev = msg["event"]
                    on_event(decode(EVENT_TYPES[ev["type"]], ev["data"]))
            elif "report" in msg:
                from evalgap.verifier.report.gap import GapReport

                return decode(GapReport, msg["report"])
            elif "error" in msg:
                raise _error(msg["error"])
            else:
                raise ServerError("the evalgap server sent an unknown message")


def _error(err: dict[str, Any]) -> Exception:
    from evalgap.specs_lang.errors import Diagnostic, SpecError
    from evalgap.verifier import errors
    from evalgap.verifier.server.codec import decode

    kind = err.get("type")
    if kind == "SpecError":
        diags = [decode(Diagnostic, d) for d in err.get("diagnostics", [])]
        return SpecError(diags, err.get("sources") or {})
    cls = {"UsageError": errors.UsageError, "TargetError": errors.TargetError, "CaseError": errors.CaseError,
           "VerifierError": errors.VerifierError}.get(str(kind), ServerError)
    return cls(str(err.get("message", "the evalgap server failed")))
