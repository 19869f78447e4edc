"""Run untrusted code (the target, its harness, CrossHair on it) in a limited worker subprocess.

Each call starts ``python -m <module> REQUEST.json RESULT.json`` with:

* ``RLIMIT_CPU`` (CPU seconds) and ``RLIMIT_AS`` (address space, bytes) set before ``exec``;
* a wall-clock timeout after which the whole process group is killed;
* a private temporary working directory (deleted afterwards), no stdin, a scrubbed environment
  (``PATH``, ``LANG``, ``HOME`` set to the private folder, ``PYTHONHASHSEED=0``).

The process is a fork of a pooled server that has already imported the worker's heavy modules
(:mod:`evalgap.verifier.sandbox.forkserver`, same limits and isolation), or, when that is off or unavailable, a
new ``python`` process. Inside, the worker installs the audit-hook guard (:mod:`evalgap.verifier.sandbox.guard`).

This contains accidents and naive gaming (an endless loop, a huge allocation, ``os._exit``); it is **not**
a security boundary against a determined attacker: use a container or VM for that.
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgap.verifier.sandbox import forkserver, workers
from evalgap.verifier.sandbox.lifetime import die_with_parent

__all__ = ["Limits", "WorkerOutcome", "run_worker", "wall_limit", "prestart"]


@dataclass(frozen=True)
class Limits:
    """Resource limits of one worker run.

    Attributes:
        cpu_s: CPU seconds (``RLIMIT_CPU``; the kernel sends SIGXCPU, then SIGKILL).
        wall_s: wall-clock seconds before the process group is killed.
        memory_bytes: address-space limit in bytes (``RLIMIT_AS``).
    """

    cpu_s: float = 60.0
    wall_s: float = 120.0
    memory_bytes: int = 4 * 1024**3


@dataclass(frozen=True)
class WorkerOutcome:
    """What a worker run produced.

    Attributes:
        result: the JSON object the worker wrote, or None when it wrote none (crash, kill, timeout).
        status: ``ok`` (result written), ``timeout`` (wall clock), ``cpu-limit``, ``memory``,
            ``crashed`` (exited without a result: ``os._exit``, a signal, an interpreter error).
        returncode: the process's exit code (negative: killed by that signal).
        stderr: the last 4,000 characters of its standard error.
        wall_s: wall-clock seconds it ran.
    """

    result: dict[str, Any] | None
    status: str
    returncode: int | None
    stderr: str
    wall_s: float


def wall_limit(cpu_s: float, slack_s: float = 30.0) -> float:
    """A wall-clock limit for a worker allowed ``cpu_s`` CPU seconds: ``2 * cpu_s + slack_s``, stretched by
    the machine's load (the 1-minute load average per core, when above 1), since the CPU limit is the real
    budget and the wall clock only catches workers that sleep or block."""
    try:
        load = os.getloadavg()[0] / max(1, len(os.sched_getaffinity(0)))
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        load = 1.0
    return (2 * cpu_s + slack_s) * max(1.0, min(load, 8.0))


def _scrubbed_env(home: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    return env


def _limiter(limits: Limits) -> Any:
    parent = os.getpid()

    def apply() -> None:  # runs in the child between fork and exec
        die_with_parent(parent)  # a killed evalgap run takes its workers along (sandbox/lifetime.py)
        cpu = max(1, int(limits.cpu_s + 0.999))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _run_spawned(module: str, req_path: Path, out_path: Path, work: Path,
                 limits: Limits) -> tuple[int | None, bool, bytes]:
    cmd = [sys.executable, "-X", "utf8", "-m", workers.kind(module).module, str(req_path), str(out_path)]
    proc = subprocess.Popen(
        cmd, cwd=work, env=_scrubbed_env(str(work)), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_limiter(limits),
    )
    timed_out = False
    try:
        _, err = proc.communicate(timeout=limits.wall_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, err = proc.communicate()
    finally:
        try:  # leftovers of a target that forked
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return proc.returncode, timed_out, err


_SERVER_HOME: list[str] = []
_HOME_LOCK = threading.Lock()


def _server_env() -> dict[str, str]:
    with _HOME_LOCK:
        if not _SERVER_HOME:
            _SERVER_HOME.append(tempfile.mkdtemp(prefix="evalgap-forkserver-"))
            atexit.register(shutil.rmtree, _SERVER_HOME[0], True)
    return _scrubbed_env(_SERVER_HOME[0])


def prestart(modules: list[str], count: int) -> None:
    """Start ``count`` fork servers of each worker kind in background threads, so that their start-up
    overlaps with each other and with the caller's work (no-op when fork servers are off)."""
    if not forkserver.enabled():
        return

    for module in modules:
        if forkserver.served(module):
            for _ in range(max(0, count - forkserver.pool().coming(module))):
                forkserver.pool().start_background(module, _server_env())


def _run_served(module: str, req_path: Path, out_path: Path, work: Path,
                limits: Limits) -> tuple[int | None, bool] | None:
    """Run the job as a fork of a pooled server of its kind; None when no server can do it."""
    if not forkserver.served(module):
        return None
    try:
        server = forkserver.pool().acquire(module, _server_env())
    except OSError:
        return None
    job = {"kind": module, "request": str(req_path), "result": str(out_path), "cwd": str(work),
           "stderr": str(work.parent / "stderr.txt"), "env": _scrubbed_env(str(work)), "cpu_s": limits.cpu_s,
           "wall_s": limits.wall_s, "memory_bytes": limits.memory_bytes}
    reply = server.run(job)
    if reply is None:
        server.close()
        return None
    forkserver.pool().release(server)
    return int(reply["returncode"]), bool(reply["timed_out"])


def run_worker(module: str, request: dict[str, Any], limits: Limits) -> WorkerOutcome:
    """Run ``python -m module`` on ``request`` in a fresh, limited subprocess.

    Args:
        module: the worker kind's registered name (``crosshair``, ``replay``, ...; see
            :mod:`evalgap.verifier.sandbox.workers`).
        request: a JSON-serializable dict handed to the worker.
        limits: CPU, wall-clock and memory limits.

    Returns:
        A :class:`WorkerOutcome`; never raises for anything the worker does.
    """
    with tempfile.TemporaryDirectory(prefix="evalgap-worker-") as tmp:
        req_path = Path(tmp) / "request.json"
        out_path = Path(tmp) / "result.json"
        work = Path(tmp) / "cwd"
        work.mkdir()
        req_path.write_text(json.dumps(request), encoding="utf-8")
        start = time.monotonic()
        served = _run_served(module, req_path, out_path, work, limits) if forkserver.enabled() else None
        if served is not None:
            rc, timed_out = served
            err_path = work.parent / "stderr.txt"
            err = err_path.read_bytes() if err_path.exists() else b""
        else:
            rc, timed_out, err = _run_spawned(module, req_path, out_path, work, limits)
        wall = time.monotonic() - start
        stderr = err.decode("utf-8", "replace")[-4000:]
        result = None
        if out_path.exists():
            try:
                loaded = json.loads(out_path.read_text(encoding="utf-8"))
                result = loaded if isinstance(loaded, dict) else None
            except (ValueError, OSError):
                result = None
        if timed_out:
            status = "timeout"
        elif result is not None:
            status = "ok"
        elif rc in (-signal.SIGXCPU, -signal.SIGKILL) and "MemoryError" not in stderr:
            status = "cpu-limit"
        elif "MemoryError" in stderr:
            status = "memory"
        else:
            status = "crashed"
        return WorkerOutcome(result, status, rc, stderr, wall)
