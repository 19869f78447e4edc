"""The OS sandbox of every job (issue 17; verifier/sandbox/isolation.py, landlock.py), job by job through
``run_worker``: hostile one-line targets that act through libc (which no audit hook sees), on both the fork
server path and the spawned path, and the fallback (``EVALGAP_SANDBOX=python-guard``), which must be said.

The signature probe is the worker: it only imports the target, so the attack runs at import time; a test
kind ``test-os-served`` runs the same worker from a fork server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalgap.verifier.sandbox import forkserver, isolation, landlock, workers
from evalgap.verifier.sandbox.runner import Limits, WorkerOutcome, run_worker

SERVED = "test-os-served"
OS_AVAILABLE = isolation.probe() != isolation.GUARD_ONLY
needs_os = pytest.mark.skipif(not OS_AVAILABLE, reason="no OS isolation on this machine (python-guard)")
needs_landlock = pytest.mark.skipif(landlock.abi() < 1, reason="no Landlock in this kernel")

PRELUDE = "import ctypes, os, sys, time\nlibc = ctypes.CDLL(None, use_errno=True)\n"


@pytest.fixture(scope="module", autouse=True)
def _served_kind() -> Iterator[None]:
    """A served kind running the signature worker from a small fork server (removed afterwards)."""
    workers.register(workers.WorkerKind(SERVED, "evalgap.verifier.project.signature_worker", ("json",)))
    yield
    workers.WORKERS.pop(SERVED, None)


def _run(tmp_path: Path, body: str, kind: str, wall_s: float = 20.0) -> WorkerOutcome:
    pkg = tmp_path / "target"
    pkg.mkdir(exist_ok=True)
    (pkg / "hostile.py").write_text(PRELUDE + body + "\ndef f(n: int) -> int:\n    return n\n", encoding="utf-8")
    sys.modules.pop("hostile", None)
    return run_worker(kind, {"paths": [str(pkg)], "module": "hostile"}, Limits(cpu_s=10, wall_s=wall_s))


@pytest.fixture(params=[SERVED, "signature"], ids=["fork-server", "spawned"])
def kind(request: pytest.FixtureRequest) -> str:
    """Both ways a job starts."""
    return str(request.param)


@needs_landlock
def test_libc_write_outside_is_refused(tmp_path: Path, kind: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep", encoding="utf-8")
    mode = outside.stat().st_mode
    body = (f"fd = libc.open({str(outside / 'new.txt')!r}.encode(), 0o101, 0o644)\n"
            f"libc.unlink({str(outside / 'keep.txt')!r}.encode())\n"
            f"libc.chmod({str(outside)!r}.encode(), 0)\n"
            "fd2 = libc.open(b'inside.txt', 0o101, 0o644)\n"
            "print('fds', fd, fd2, file=sys.stderr)\n")
    out = _run(tmp_path, body, kind)
    assert out.status == "ok", out.stderr
    assert sorted(os.listdir(outside)) == ["keep.txt"] and outside.stat().st_mode == mode
    assert "fds -1 " in out.stderr and "fds -1 -1" not in out.stderr  # its own folder stays writable
    assert out.sandbox.startswith(f"os (landlock abi {landlock.abi()}")


@needs_os
def test_no_network(tmp_path: Path, kind: str) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    got: list[str] = []

    def accept() -> None:
        end = time.monotonic() + 8
        while time.monotonic() < end and not got:
            try:
                conn, _ = listener.accept()
                got.append("connected")
                conn.close()
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    body = ("import socket, struct\n"
            "s = socket.socket()\ns.settimeout(1)\ntry:\n    s.connect(('127.0.0.1', %d))\nexcept OSError as e:\n"
            "    print('py', type(e).__name__, file=sys.stderr)\n"
            "fd = libc.socket(2, 1, 0)\n"
            "addr = struct.pack('=H', 2) + struct.pack('!H', %d) + bytes([127, 0, 0, 1]) + bytes(8)\n"
            "print('libc', libc.connect(fd, addr, len(addr)), file=sys.stderr)\n") % (port, port)
    out = _run(tmp_path, body, kind)
    time.sleep(0.3)
    listener.close()
    t.join()
    assert out.status == "ok", out.stderr
    assert got == [] and "libc -1" in out.stderr and "py " in out.stderr
    assert "netns" in out.sandbox or "landlock" in out.sandbox


@needs_os
def test_setsid_child_dies_with_the_job(tmp_path: Path, kind: str) -> None:
    late = tmp_path / "late.txt"
    body = ("pid = libc.fork()\n"
            "if pid == 0:\n    libc.setsid()\n    libc.sleep(1)\n"
            f"    libc.open({str(late)!r}.encode(), 0o101, 0o644)\n"
            f"    libc.mkdir({str(tmp_path / 'late-dir')!r}.encode(), 0o755)\n    libc._exit(0)\n")
    out = _run(tmp_path, body, kind)
    assert out.status == "ok", out.stderr
    time.sleep(1.8)
    assert not late.exists() and not (tmp_path / "late-dir").exists()
    assert "pidns" in out.sandbox


@needs_os
def test_fork_bomb_is_bounded(tmp_path: Path, kind: str) -> None:
    """Spawned, the job moves itself into a pids cgroup of its own; served, the fork server forked it inside
    a fresh one it had moved itself into (isolation.ServerCgroup)."""
    body = ("n = 0\nfor i in range(400):\n    pid = libc.fork()\n    if pid == 0:\n        libc.sleep(2)\n"
            "        libc._exit(0)\n    if pid < 0:\n        break\n    n += 1\nprint('forked', n, file=sys.stderr)\n")
    out = _run(tmp_path, body, kind)
    assert out.status == "ok", out.stderr
    if "pids.max" not in out.sandbox and "nproc" not in out.sandbox:
        pytest.skip(f"no process limit in force here ({out.sandbox})")
    forked = int(out.stderr.split("forked ")[1].split()[0])
    assert 200 <= forked < 256


@needs_os
def test_a_closed_server_leaves_no_cgroup_behind(tmp_path: Path) -> None:
    base = isolation._cgroup_base()
    if base is None or not os.access(base, os.W_OK):
        pytest.skip("no writable pids cgroup hierarchy here")
    out = _run(tmp_path, "", SERVED)
    assert out.status == "ok" and "pids.max" in out.sandbox, out
    servers = [s for s in forkserver.pool()._all if s.kind == SERVED and s.alive()]
    tags = [f"evalgap-srv{s.proc.pid}-" for s in servers]
    # the idle server sits in the cgroup made for its next job; the job's own cgroup is gone
    assert any(n.startswith(tuple(tags)) for n in os.listdir(base))
    for s in servers:
        s.close()
    assert not [n for n in os.listdir(base) if n.startswith(tuple(tags))]


@needs_os
def test_target_cannot_signal_its_fork_server(tmp_path: Path) -> None:
    _run(tmp_path, "", SERVED)  # a server is idle now
    servers = [s for s in forkserver.pool()._all if s.kind == SERVED and s.alive()]
    assert servers
    pids = [s.proc.pid for s in servers]
    body = f"for pid in {pids!r}:\n    print('kill', libc.kill(pid, 9), file=sys.stderr)\n" \
           "print('ppid', os.getppid(), file=sys.stderr)\n"
    out = _run(tmp_path, body, SERVED)
    assert out.status == "ok", out.stderr
    # the job runs as PID 2 of its own namespace: its parent is the namespace's waiting PID 1, and no process
    # outside it (the servers, evalgap) can be signalled
    assert all(s.alive() for s in servers) and "kill 0" not in out.stderr and "ppid 1" in out.stderr


def test_server_dying_mid_job_is_a_crashed_job_not_a_rerun(tmp_path: Path) -> None:
    _run(tmp_path, "", SERVED)
    victims = [s for s in forkserver.pool()._all if s.kind == SERVED and s.alive()]

    def kill_later() -> None:
        time.sleep(1.0)
        for s in victims:
            s.proc.kill()

    threading.Thread(target=kill_later, daemon=True).start()
    start = time.monotonic()
    out = _run(tmp_path, "time.sleep(3)\n", SERVED)
    assert out.status == "crashed" and out.result is None
    assert "fork server died during the job" in out.stderr
    assert time.monotonic() - start < 2.8  # not rerun (a rerun sleeps 3 s more)


def test_fallback_is_reported(tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALGAP_SANDBOX", "python-guard")
    outside = tmp_path / "outside.txt"
    out = _run(tmp_path, f"libc.open({str(outside)!r}.encode(), 0o101, 0o644)\n", kind)
    assert out.status == "ok" and out.sandbox == "python-guard"
    assert outside.exists()  # the guard does not see libc: the weaker promise, and the report says so
    mark = isolation.mark()
    isolation.record("os (landlock abi 7, netns)")
    isolation.record("python-guard")
    assert isolation.summary(mark) == "python-guard"


def test_failing_unshare_and_landlock_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the kernel refuses every step, a job claims nothing (and runs: the guard still holds)."""
    monkeypatch.setattr(isolation, "_unshare", lambda lib: [])
    monkeypatch.setattr(landlock, "abi", lambda: 0)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        isolation.enter({"report_fd": w}, ["/dev/null"])
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    assert isolation.read_report(r) == "python-guard"


SPEC = """spec tiny "sandbox report"
  target: tiny.py

function f(n: int) -> int
  requirement T-1 "Returns its argument."
    ensures result == n
"""


@pytest.mark.parametrize("mode", ["auto", "python-guard"])
def test_reports_and_version_say_what_was_in_force(tmp_path: Path, mode: str) -> None:
    (tmp_path / "spec.req").write_text(SPEC, encoding="utf-8")
    (tmp_path / "tiny.py").write_text("def f(n: int) -> int:\n    return n\n", encoding="utf-8")
    env = {**os.environ, "EVALGAP_SANDBOX": mode}
    exe = [sys.executable, "-m", "evalgap"]
    res = subprocess.run([*exe, "check", "spec.req", "--engines", "hypothesis", "--no-analysis", "-f", "json"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    version = subprocess.run([*exe, "--version"], env=env, capture_output=True, text=True, timeout=60).stdout
    md = subprocess.run([*exe, "check", "spec.req", "--engines", "hypothesis", "--no-analysis", "-f", "markdown"],
                        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120).stdout
    if mode == "python-guard" or not OS_AVAILABLE:
        assert report["sandbox"] == "python-guard" and "sandbox: python-guard" in version
        assert "sandbox: python-guard" in md
    else:
        assert report["sandbox"].startswith("os (") and "pidns" in report["sandbox"]
        assert f"sandbox: {report['sandbox']}" in version and f"sandbox: {report['sandbox']}" in md
