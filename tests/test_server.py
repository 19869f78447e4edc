"""``evalgap serve`` (issue 20): a private Unix socket, clear errors when it is absent or stale, checks through
it equal to checks in-process, and no way in for sandboxed targets."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import evalgap
from evalgap.specs_lang.errors import SpecError
from evalgap.verifier.findings import Verdict
from evalgap.verifier.server import ServerError, check_via_server
from evalgap.verifier.server.client import connect
from evalgap.verifier.server.codec import decode, encode
from evalgap.verifier.server.protocol import CheckRequest, environment, secure_folder


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    return folder


def test_absent_stale_and_open_sockets_are_clear_errors(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    where = folder / "serve.sock"
    with pytest.raises(ServerError, match="does not exist.*evalgap serve"):
        connect(where)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(where))  # bound, never listening, closed: what a killed server leaves
    s.close()
    with pytest.raises(ServerError, match="stale server socket"):
        connect(where)
    folder.chmod(0o755)
    with pytest.raises(ServerError, match="open to other users"):
        connect(where)
    with pytest.raises(ServerError, match="does not exist"):
        secure_folder(tmp_path / "nowhere", create=False)
    secure_folder(tmp_path / "made", create=True)
    assert (tmp_path / "made").stat().st_mode & 0o777 == 0o700


def test_serve_replaces_a_stale_socket_and_refuses_a_live_one(tmp_path: Path) -> None:
    from evalgap.verifier.server.daemon import _claim

    where = _folder(tmp_path) / "serve.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(where))
    stale.close()
    _claim(where)
    assert not where.exists()
    live = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    live.bind(str(where))
    live.listen(1)
    try:
        with pytest.raises(ServerError, match="already listening"):
            _claim(where)
        assert where.exists()
    finally:
        live.close()


def test_the_request_round_trips(tmp_path: Path) -> None:
    req = CheckRequest(str(tmp_path / "a.req"), "mod", evalgap.settings(tmp_path, budget=2, engines="crosshair"),
                       str(tmp_path), env=environment())
    assert decode(CheckRequest, encode(req)) == req


TARGET = f"""\
import socket

SOCKET = {{where!r}}


def inc(n: int) -> int:
    return n + 1


def probe() -> int:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(SOCKET)
    except Exception:
        return 0
    s.close()
    return 1
"""

SPEC = """\
spec srv "through the server"
  target: srv_target.py

function inc(n: int) -> int
  requirement I-1 "Adds one."
    ensures result == n + 1
  requirement I-2 "Adds two (false)."
    ensures result == n + 2

function probe() -> int
  requirement P-1 "A sandboxed target cannot reach the server."
    example probe() == 0
"""


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Path]:
    """``evalgap serve`` in a subprocess on a socket in a private temporary folder."""
    where = _folder(tmp_path) / "serve.sock"
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen([str(Path(sys.executable).parent / "evalgap"), "serve", "--socket", str(where),
                             "-j", "1"], stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
    try:
        for _ in range(600):
            if where.exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert where.exists(), (tmp_path / "serve.log").read_text()
        assert where.stat().st_mode & 0o777 == 0o600
        yield where
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()
    assert not where.exists()  # removed on a clean stop


@pytest.mark.slow
def test_checks_through_the_server_and_a_target_cannot_reach_it(server: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "srv_target.py").write_text(TARGET.format(where=str(server)))
    (project / "srv.req").write_text(SPEC)
    opts = evalgap.settings(project, budget=3, engines="crosshair", cache=False, analysis=False, jobs=1)
    events: list[str] = []
    report = evalgap.check(project / "srv.req", settings=opts, server=server,
                           on_event=lambda e: events.append(type(e).__name__))
    verdicts = {r.id: r.verdict for r in report.requirements}
    assert verdicts["I-1"] is Verdict.VERIFIED and verdicts["I-2"] is Verdict.REFUTED
    assert verdicts["P-1"] is not Verdict.REFUTED, report.requirements[2].verdicts  # it did not connect
    assert events[0] == "CheckStarted" and events.count("RequirementFinished") == 3
    refuted = next(r for r in report.requirements if r.id == "I-2").verdicts[0]
    assert refuted.counterexample and refuted.reproducer
    local = evalgap.check(project / "srv.req", settings=opts)  # the same verdicts in-process
    assert {r.id: r.verdict for r in local.requirements} == verdicts
    sys.path.insert(0, str(project))  # outside the sandbox the same probe does connect (the test is not vacuous)
    try:
        import importlib

        assert importlib.import_module("srv_target").probe() == 1
    finally:
        sys.path.remove(str(project))
    (project / "bad.req").write_text("spec bad\n  target: srv_target.py\nfunction inc(n: int) -> int\n"
                                     "  requirement B-1 \"x\"\n    ensures result == m\n")
    with pytest.raises(SpecError) as err:
        check_via_server(project / "bad.req", None, opts, path=server)
    assert err.value.diagnostics[0].span.line >= 1 and "m" in err.value.render()
    with pytest.raises(ServerError, match="another environment"):
        os.environ["EVALGAP_SOME_SETTING"] = "differs"
        try:
            check_via_server(project / "srv.req", None, opts, path=server)
        finally:
            del os.environ["EVALGAP_SOME_SETTING"]


def test_peer_uid_reads_the_other_end() -> None:
    from evalgap.verifier.server.protocol import peer_uid

    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with a, b:
        assert peer_uid(a) == os.getuid() == peer_uid(b)


@pytest.mark.skipif(not hasattr(os, "setuid") or os.getuid() != 0, reason="needs root to listen as another user")
def test_client_refuses_a_server_of_another_user(tmp_path: Path) -> None:
    """A listener of another user on the path (the folder checks passed, then the socket was swapped) gets no
    request: the client reads the listener's user from the connection (SO_PEERCRED) and stops."""
    where = _folder(tmp_path) / "serve.sock"
    code = ("import os, socket, sys, time\n"
            "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
            f"s.bind({str(where)!r})\n"
            "os.setuid(65534)\n"
            "s.listen(1)\n"
            "print('ready', flush=True)\n"
            "c, _ = s.accept()\n"
            "c.settimeout(5)\n"
            "try:\n"
            "    data = c.recv(100)\n"
            "except OSError:\n"
            "    data = b''\n"
            "print('got', len(data), flush=True)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        with pytest.raises(ServerError, match="runs as user 65534, not as this user"):
            connect(where, timeout=5)
        assert child.stdout.readline().strip() == "got 0"  # nothing was sent to it
    finally:
        child.kill()
        child.wait()


def test_server_refuses_a_client_of_another_user(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from evalgap.verifier.server import daemon

    monkeypatch.setattr(daemon, "peer_uid", lambda _s: os.getuid() + 1)
    ran: list[object] = []
    monkeypatch.setattr(daemon, "_run", lambda req, send: ran.append(req))
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with a, b:
        a.sendall(b'{"spec": "x.req"}\n')
        daemon._Handler(b, "", None)  # type: ignore[arg-type]
        b.shutdown(socket.SHUT_WR)
        reply = json.loads(a.makefile().readline())
    assert ran == [] and "answers only user" in reply["error"]["message"]
