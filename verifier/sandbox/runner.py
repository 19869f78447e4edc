"""Run untrusted code (the target, its harness, CrossHair on it) in a limited, isolated worker process.

Each call runs the worker kind's ``main([REQUEST.json, RESULT.json])`` with:

* ``RLIMIT_CPU`` (CPU seconds) and ``RLIMIT_AS`` (address space, bytes);
* a wall-clock timeout after which the whole process group is killed;
* a private temporary job folder (deleted afterwards; its ``cwd`` is also ``HOME`` and ``TMPDIR``), no stdin,
  a scrubbed environment (``PATH``, ``LANG``, ``PYTHONHASHSEED`` one of :data:`HASH_SEEDS`, the caller's
  ``PYTHONPATH``);
* the OS isolation of :mod:`evalgap.verifier.sandbox.isolation` (namespaces, Landlock, seccomp: writes only in
  the job folder, no network, no process outliving the job), or, where the kernel offers none, only the
  audit-hook guard (:mod:`evalgap.verifier.sandbox.guard`) that the worker installs in any case; the
  outcome says which (``WorkerOutcome.sandbox``), and so does every report.

The process is a fork of a pooled server that has already imported the worker's heavy modules
(:mod:`evalgap.verifier.sandbox.forkserver`), or, when that is off or unavailable, a new ``python`` process
(``python -m evalgap.verifier.sandbox.forkserver --job JOB.json``) that sets itself up the same way. The
threat model (what is promised on which kernel, and what is not) is in docs/engine.md.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from evalgap.verifier.sandbox import forkserver, isolation, record, workers
from evalgap.verifier.sandbox.lifetime import die_with_parent
from evalgap.verifier.sandbox.scratch import lasting_dir, scratch_dir

__all__ = ["Limits", "WorkerOutcome", "run_worker", "wall_limit", "prestart", "Cancel", "cancellable", "was_cancelled", "HASH_SEEDS", "WALL_LOAD_CAP",
           "SPAWN_CPU_S"]


def _choose_seeds() -> tuple[int, int, int]:
    """Three distinct string-hash seeds, random per process (``EVALGAP_HASH_SEEDS=A,B,C`` fixes them)."""
    given = os.environ.get("EVALGAP_HASH_SEEDS", "")
    try:
        a, b, c = (int(x) for x in given.split(","))
        if len({a, b, c}) == 3 and all(0 <= x < 2**32 for x in (a, b, c)):
            return a, b, c
    except ValueError:
        pass
    picked = random.SystemRandom().sample(range(1, 2**32), 3)
    return picked[0], picked[1], picked[2]


#: The ``PYTHONHASHSEED`` s of this process's workers: the first for every worker unless
#: :func:`run_worker` is given another (the engines run Hypothesis and a second CrossHair run under the
#: others, so that no verdict rests on one string-hash order).
HASH_SEEDS = _choose_seeds()
_POOL_SEED = HASH_SEEDS[0]  # the seed of the shared pool's servers (HASH_SEEDS may be replaced in tests)


@dataclass(frozen=True)
class Limits:
    """Resource limits of one worker run.

    Attributes:
        cpu_s: CPU seconds (a profiling timer sends SIGPROF at exactly this much; ``RLIMIT_CPU``, rounded up to
            whole seconds, then SIGXCPU and SIGKILL).
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
            ``crashed`` (exited without a result: ``os._exit``, a signal, an interpreter error),
            ``cancelled`` (stopped, or not started, by the :class:`Cancel` of :func:`cancellable`).
        returncode: the process's exit code (negative: killed by that signal).
        stderr: the last 4,000 characters of its standard error.
        wall_s: wall-clock seconds it ran.
        sandbox: the isolation it ran under (``os (landlock abi 7, netns, pidns, userns)`` or
            ``python-guard``; :mod:`evalgap.verifier.sandbox.isolation`).
    """

    result: dict[str, Any] | None
    status: str
    returncode: int | None
    stderr: str
    wall_s: float
    sandbox: str = "python-guard"


_SCOPE = threading.local()


class Cancel:
    """A stop signal shared by the engines of one requirement: once one of them has a replayed
    counterexample, the others' workers are no longer needed (:func:`cancellable`).

    Attributes:
        by: the name of whoever stopped the others (an engine), empty until :meth:`stop`.
    """

    def __init__(self) -> None:
        self.event = threading.Event()
        self.by = ""

    def stop(self, by: str) -> None:
        """Stop the workers of every thread inside :func:`cancellable` with this signal (``by``: who)."""
        if not self.event.is_set():
            self.by = by
            self.event.set()

    def is_set(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self.event.is_set()


@contextlib.contextmanager
def cancellable(cancel: Cancel) -> Iterator[list[bool]]:
    """Within the block, this thread's :func:`run_worker` calls stop when ``cancel`` is set: a running job's
    process group is killed and the call returns status ``cancelled``; later calls return it at once.

    Yields:
        A one-item list, ``[True]`` once a call of this thread returned ``cancelled`` (its engine's verdict is
        then not the engine's answer: not to be cached or reported as such).
    """
    before = getattr(_SCOPE, "cancel", None), getattr(_SCOPE, "hit", None)
    hit = [False]
    _SCOPE.cancel, _SCOPE.hit = cancel, hit
    try:
        yield hit
    finally:
        _SCOPE.cancel, _SCOPE.hit = before


def _cancel_here() -> Cancel | None:
    found = getattr(_SCOPE, "cancel", None)
    return found if isinstance(found, Cancel) else None


def was_cancelled() -> bool:
    """Whether a :func:`run_worker` call of this thread, inside the current :func:`cancellable` block,
    returned ``cancelled`` (False outside such a block)."""
    hit = getattr(_SCOPE, "hit", None)
    return isinstance(hit, list) and bool(hit and hit[0])


def _mark_cancelled() -> None:
    hit = getattr(_SCOPE, "hit", None)
    if isinstance(hit, list):
        hit[:] = [True]


#: The most the wall-clock limit stretches with the machine's load (the 1-minute load average per core).
WALL_LOAD_CAP = 3.0
#: CPU seconds a spawned worker (no fork server) is given on top of its limit for importing its heavy modules.
SPAWN_CPU_S = 2.0


def wall_limit(cpu_s: float, slack_s: float = 30.0) -> float:
    """A wall-clock limit for a worker allowed ``cpu_s`` CPU seconds: ``1.5 * cpu_s + slack_s``, stretched by
    the machine's load (the 1-minute load average per core, when above 1) up to :data:`WALL_LOAD_CAP` times.
    The CPU limit is the real budget; the wall clock catches workers that sleep or block, so it must not grow
    without bound on a loaded machine (before: up to 8 times)."""
    try:
        load = os.getloadavg()[0] / max(1, len(os.sched_getaffinity(0)))
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        load = 1.0
    return (1.5 * cpu_s + slack_s) * max(1.0, min(load, WALL_LOAD_CAP))


def _scrubbed_env(home: str, hash_seed: int | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "PYTHONHASHSEED": str(HASH_SEEDS[0] if hash_seed is None else hash_seed),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    if os.environ.get("PYTHONPATH"):  # where the user's interpreter finds installed modules (a --target module);
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]  # the cache key follows the same path (cachedeps.worker_path)
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


def _job(module: str, req_path: Path, out_path: Path, work: Path, limits: Limits,
         hash_seed: int | None = None) -> dict[str, Any]:
    """The job record a fork server's child (or the spawned jail) runs (:func:`forkserver._child`)."""
    return {"kind": module, "module": workers.kind(module).module, "request": str(req_path), "result": str(out_path), "cwd": str(work),
            "stderr": str(work.parent / "stderr.txt"), "env": _scrubbed_env(str(work), hash_seed),
            "cpu_s": limits.cpu_s,
            "wall_s": limits.wall_s, "memory_bytes": limits.memory_bytes, "sandbox": isolation.requested(),
            "cgroup": f"evalgap-{work.parent.name}"}


def _run_spawned(module: str, req_path: Path, out_path: Path, work: Path, limits: Limits,
                 hash_seed: int | None = None, cancel: Cancel | None = None) -> tuple[int | None, bool, bytes, str, bool]:
    report_r, report_w = os.pipe()
    job_path = work.parent / "job.json"
    limits = Limits(limits.cpu_s + SPAWN_CPU_S, limits.wall_s + SPAWN_CPU_S, limits.memory_bytes)  # imports
    job = {**_job(module, req_path, out_path, work, limits, hash_seed), "report_fd": report_w, "as_main": True}
    job_path.write_text(json.dumps(job), encoding="utf-8")
    cmd = [sys.executable, "-X", "utf8", "-m", "evalgap.verifier.sandbox.forkserver", "--job", str(job_path)]
    try:
        proc = subprocess.Popen(
            cmd, cwd=work, env=_scrubbed_env(str(work), hash_seed), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_limiter(limits), pass_fds=(report_w,),
        )
    finally:
        os.close(report_w)
    timed_out = cancelled = False
    deadline = time.monotonic() + limits.wall_s
    try:
        while True:
            try:  # with a stop signal, in steps of 20 ms
                _, err = proc.communicate(timeout=max(0.0, deadline - time.monotonic()) if cancel is None
                                          else min(0.02, max(0.0, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                cancelled = cancel is not None and cancel.is_set()
                timed_out = not cancelled and time.monotonic() >= deadline
                if timed_out or cancelled:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    _, err = proc.communicate()
                    break
    finally:
        try:  # leftovers of a target that forked
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    isolation.cleanup(job)
    err_path = work.parent / "stderr.txt"
    if err_path.exists():
        err = err + err_path.read_bytes()
    return proc.returncode, timed_out, err, isolation.read_report(report_r), cancelled


_SERVER_HOME: list[str] = []
_HOME_LOCK = threading.Lock()


def _server_env(hash_seed: int | None = None) -> dict[str, str]:
    with _HOME_LOCK:
        if not _SERVER_HOME:
            _SERVER_HOME.append(lasting_dir("evalgap-forkserver-"))
    return _scrubbed_env(_SERVER_HOME[0], hash_seed)


_SEED_POOLS: dict[int, forkserver.ServerPool] = {}


def _pool(hash_seed: int | None) -> forkserver.ServerPool:
    """The fork servers of one hash seed (a forked child keeps its server's seed): the shared pool for the
    first of :data:`HASH_SEEDS`, one more pool per other seed."""
    if hash_seed is None or hash_seed == _POOL_SEED:
        return forkserver.pool()
    with _HOME_LOCK:
        if hash_seed not in _SEED_POOLS:
            _SEED_POOLS[hash_seed] = forkserver.ServerPool()
            atexit.register(_SEED_POOLS[hash_seed].close)
        return _SEED_POOLS[hash_seed]


def prestart(modules: list[str], count: int, hash_seed: int | None = None) -> None:
    """Start ``count`` fork servers of each worker kind (under ``hash_seed``, default the first of
    :data:`HASH_SEEDS`) in background threads, so that their start-up overlaps with each other and with the
    caller's work (no-op when fork servers are off)."""
    if not forkserver.enabled():
        return
    hash_seed = HASH_SEEDS[0] if hash_seed is None else hash_seed
    for module in modules:
        if forkserver.served(module):
            for _ in range(max(0, count - _pool(hash_seed).coming(module))):
                _pool(hash_seed).start_background(module, _server_env(hash_seed))


def _run_served(module: str, req_path: Path, out_path: Path, work: Path, limits: Limits,
                hash_seed: int | None = None,
                cancel: Cancel | None = None) -> tuple[int | None, bool, str, bool, bool] | None:
    """Run the job as a fork of a pooled server of its kind: (returncode, timed out, sandbox, server died
    during the job, cancelled); None when no server could take the job (the caller spawns one process
    instead)."""
    if not forkserver.served(module):
        return None
    try:
        server = _pool(hash_seed).acquire(module, _server_env(hash_seed))
    except OSError:
        return None
    reply = server.run(_job(module, req_path, out_path, work, limits, hash_seed),
                       cancel.event if cancel is not None else None)
    if reply is None:
        server.close()
        return None
    if reply.get("server_died"):
        server.close()
        return None, False, isolation.GUARD_ONLY, True, False
    _pool(hash_seed).release(server)
    return (int(reply["returncode"]), bool(reply["timed_out"]), str(reply.get("sandbox", isolation.GUARD_ONLY)),
            False, bool(reply.get("cancelled")))


def run_worker(module: str, request: dict[str, Any], limits: Limits,
               hash_seed: int | None = None) -> WorkerOutcome:
    """Run ``python -m module`` on ``request`` in a fresh, limited subprocess.

    Args:
        module: the worker kind's registered name (``crosshair``, ``replay``, ...; see
            :mod:`evalgap.verifier.sandbox.workers`).
        request: a JSON-serializable dict handed to the worker.
        limits: CPU, wall-clock and memory limits.
        hash_seed: the worker's ``PYTHONHASHSEED`` (default: the first of :data:`HASH_SEEDS`).

    Returns:
        A :class:`WorkerOutcome`; never raises for anything the worker does.
    """
    hash_seed = HASH_SEEDS[0] if hash_seed is None else hash_seed
    cancel = _cancel_here()
    if cancel is not None and cancel.is_set():
        _mark_cancelled()
        return WorkerOutcome(None, "cancelled", None, f"stopped: {cancel.by} answered first", 0.0)
    with scratch_dir("evalgap-worker-") as tmp:
        req_path = Path(tmp) / "request.json"
        out_path = Path(tmp) / "result.json"
        work = Path(tmp) / "cwd"
        work.mkdir()
        req_path.write_text(json.dumps(request), encoding="utf-8")
        start = time.monotonic()
        served = _run_served(module, req_path, out_path, work, limits, hash_seed, cancel) \
            if forkserver.enabled() else None
        server_died = False
        if served is not None:
            rc, timed_out, sandbox, server_died, cancelled = served
            err_path = work.parent / "stderr.txt"
            err = err_path.read_bytes() if err_path.exists() else b""
            if server_died:
                err += b"\nevalgap: the fork server died during the job (killed from inside it?)"
        else:
            rc, timed_out, err, sandbox, cancelled = _run_spawned(module, req_path, out_path, work, limits,
                                                                  hash_seed, cancel)
        isolation.record(sandbox)
        wall = time.monotonic() - start
        stderr = err.decode("utf-8", "replace")[-4000:]
        result = None
        if out_path.exists() and not server_died:
            try:
                loaded = json.loads(out_path.read_text(encoding="utf-8"))
                result = loaded if isinstance(loaded, dict) else None
            except (ValueError, OSError):
                result = None
        if result is not None and rc != 0 and not result.get("tampered"):
            # the scaffold writes the whole result last and exits with 0 (channel.Channel.send): a worker
            # that ended otherwise (killed, crashed, exit code UNTRUSTED_EXIT) may have left a result file
            # the code under check wrote itself, so it is not a result; a report of tampering still counts
            result = None
        if cancelled:  # whatever it wrote before it was stopped is not its answer
            _mark_cancelled()
            return WorkerOutcome(None, "cancelled", rc, stderr, wall, sandbox)
        if timed_out:
            status = "timeout"
        elif result is not None:
            status = "ok"
        elif rc in (-signal.SIGXCPU, -signal.SIGKILL, -signal.SIGPROF) and "MemoryError" not in stderr:
            status = "cpu-limit"
        elif "MemoryError" in stderr:
            status = "memory"
        else:
            status = "crashed"
        record.note(module, result)  # the worker's run-time record of its inputs, for the result cache
        return WorkerOutcome(result, status, rc, stderr, wall, sandbox)
