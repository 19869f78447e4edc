"""Fork servers: pay the import of CrossHair and Z3 (or Hypothesis, or icontract) once per worker, not once
per requirement.

A server is a long-lived process (``python -m evalgap.verifier.sandbox.forkserver KIND``) that imports the heavy
modules of one worker kind and then, for each job it reads (one JSON line on its standard input), forks a
child that becomes a fresh worker: new session and process group, its own ``RLIMIT_CPU``/``RLIMIT_AS``
(a forked child's CPU time starts at zero), standard input and output on ``/dev/null``, standard error
to a file, the private working folder, a scrubbed environment, then the OS isolation
(:func:`evalgap.verifier.sandbox.isolation.enter`: the job runs as PID 1 of its own namespaces, under
Landlock and seccomp); the child imports the worker module and runs its ``main``. The isolation's
description comes back through a pipe in the reply (``sandbox``). The server waits for the child, kills its whole process group at the wall-clock limit
(and again afterwards, for leftovers), and answers with one JSON line (``returncode``, ``timed_out``).

The servers never import the code under check, so each child starts from the same clean state, and the
kinds are kept apart: the replay and Hypothesis servers never import CrossHair (which would disable
icontract's checks). :func:`pool` hands out idle servers to the engine's worker threads; they live
until the process exits. ``EVALGAP_FORKSERVER=0`` turns the servers off (one ``python`` per job).
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import resource
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from typing import Any

from evalgap.verifier.sandbox import isolation, workers
from evalgap.verifier.sandbox.lifetime import die_with_parent, parent_gone

__all__ = ["served", "ForkServer", "ServerPool", "pool", "enabled", "shutdown"]


def served(name: str) -> bool:
    """Whether worker kind ``name`` runs from fork servers (it has modules to preload)."""
    w = workers.WORKERS.get(name)
    return w is not None and bool(w.preload)

_real_exit = os._exit  # the sandbox guard replaces os._exit inside workers
_PARENT: list[int] = []  # in a server: the evalgap process that started it (lifetime.parent_gone)
_SERVER_PID: list[int] = []  # in a server: its own pid, which its forked children check


def enabled() -> bool:
    """False when ``EVALGAP_FORKSERVER`` is ``0``, ``false`` or ``no``."""
    return os.environ.get("EVALGAP_FORKSERVER", "1").lower() not in ("0", "false", "no")


# ------------------------------------------------------------------ server side
def _child(job: dict[str, Any]) -> None:
    """In the forked child (or the spawned jail): apply limits, then the OS isolation
    (:func:`evalgap.verifier.sandbox.isolation.enter`), run the worker's main, exit (never returns)."""
    code = 1
    exit_now = _real_exit
    try:
        try:
            os.setsid()
        except OSError:  # the spawned jail is a session leader already
            pass
        die_with_parent(_SERVER_PID[0] if _SERVER_PID else None)  # the server's death kills this worker
        mem = int(job["memory_bytes"])
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        err = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(err, 2)
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        module = importlib.import_module(job.get("module") or workers.kind(job["kind"]).module)
        prepare = getattr(module, "prepare", None)  # trusted set-up that writes outside the job's folder
        if prepare is not None:
            with open(job["request"], encoding="utf-8") as f:
                prepare(json.load(f))
        # the CPU limit starts after the trusted set-up (a first run builds Hypothesis's unicode tables there,
        # ~2-5 CPU s, which must not use up the job's budget); RLIMIT_CPU counts the process's whole CPU time
        # in whole seconds, and the profiling timer stops the worker at its exact limit (SIGPROF's default
        # action ends the process; a target that catches it still meets the rlimit)
        cpu = max(1, int(time.process_time() + float(job["cpu_s"]) + 0.999))
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)  # a spawned jail may have a lower one already
        top = cpu + 2 if hard == resource.RLIM_INFINITY else min(cpu + 2, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (min(cpu, top), top))
        signal.signal(signal.SIGPROF, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_PROF, max(0.05, float(job["cpu_s"])))
        isolation.enter(job, [os.path.dirname(os.path.abspath(job["cwd"])), os.devnull])
        # the worker process from here on: no module global holds the raw exit any more (a target that wrote
        # a result file itself and ended with exit code 0 without the scaffold would have it kept)
        _forget_exit()
        isolation.forget_exit()
        if job.get("as_main"):  # the spawned path: the arguments ``python -m MODULE REQUEST RESULT`` would have
            sys.argv = [str(module.__file__), job["request"], job["result"]]
        # only a normal return of the scaffold's exit code counts: a SystemExit(0) the target raised on the
        # way (an exception's __str__, a signal handler) must not end the worker "cleanly" with a forged file
        returned = module.main([job["request"], job["result"]])
        code = returned if type(returned) is int else 1
    except BaseException:  # noqa: BLE001 - reported through the stderr file (SystemExit included)
        try:
            sys.stderr.write(traceback.format_exc())
        except BaseException:  # noqa: BLE001
            pass
        code = 1
    if code != 0:  # after a trusted result nothing runs: the target may have replaced sys.stderr, or pointed
        try:  # descriptor 2 at the result file with its own text in the buffer
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    exit_now(code)


def _exit_gone(code: int = 0) -> None:
    raise PermissionError("evalgap: the worker's raw exit is not available to the code under check")


def _forget_exit() -> None:
    """In a job's worker process: drop this module's reference to the raw ``os._exit``."""
    globals()["_real_exit"] = _exit_gone


class _Input:
    """The server's standard input, read unbuffered by Python (its own buffer on ``os.read``), so that a
    ``cancel`` line sent during a job is seen at once with ``select`` (a text wrapper could hold it in a
    read-ahead buffer that ``select`` does not see)."""

    def __init__(self, fd: int = 0) -> None:
        self.fd, self.buf, self.eof = fd, b"", False

    def _fill(self) -> bool:
        data = os.read(self.fd, 65536)
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def readline(self) -> str | None:
        """The next line (blocking), without its newline; None at the end of input."""
        while b"\n" not in self.buf:
            if self.eof or not self._fill():
                return None
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "replace")

    def cancelled(self) -> bool:
        """Whether a ``cancel`` line has arrived (never blocks; consumes the lines that arrived)."""
        if not self.eof and select.select([self.fd], [], [], 0)[0]:
            self._fill()
        seen = False
        while b"\n" in self.buf:
            line, _, self.buf = self.buf.partition(b"\n")
            seen = seen or line.strip() == b"cancel"
        return seen


_INPUT: list[_Input] = []  # in a server: its standard input


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_CGROUP: list[isolation.ServerCgroup] = []  # in a server: the cgroup its next job is forked in


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # before Linux 5.3: poll
        return None


def _run_job(job: dict[str, Any]) -> dict[str, Any]:
    start = time.monotonic()
    cg = _CGROUP[0] if _CGROUP else None
    inherited = cg.take() if cg is not None else None
    if inherited is not None:
        job["cgroup_dir"] = inherited  # the child is forked in it; serve() removes it after the job
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        _child({**job, "report_fd": report_w})
    os.close(report_w)
    wall = float(job["wall_s"])
    timed_out = cancelled = False
    status = 0
    pidfd = _pidfd(pid)
    isolated = cg is None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if _PARENT and parent_gone(_PARENT[0]):  # the evalgap run died: take the worker along, then stop
            _kill_group(pid)
            _real_exit(0)
        timed_out = time.monotonic() - start > wall
        cancelled = not timed_out and bool(_INPUT) and _INPUT[0].cancelled()
        if timed_out or cancelled:  # the wall-clock limit, or the client no longer needs the answer
            _kill_group(pid)
            _, status = os.waitpid(pid, 0)
            break
        if not isolated and select.select([report_r], [], [], 0)[0]:
            # the job has isolated itself (no more forks of its own set-up to hold up): move to the next
            # job's cgroup now, while this one runs
            isolated = True
            assert cg is not None
            cg.prepare()
        if pidfd is None:
            time.sleep(0.004)
            continue
        # wake when the job ends, when it reports its isolation, on a line from the client (a cancel)
        watch = [pidfd] + ([report_r] if not isolated else [])
        if _INPUT and not _INPUT[0].eof:
            watch.append(_INPUT[0].fd)
        select.select(watch, [], [], 0.05)
    if pidfd is not None:
        os.close(pidfd)
    if cg is not None:
        cg.prepare()  # before the job's cgroup is removed (the server must have left it)
    _kill_group(pid)  # leftovers of a child that forked despite the guard
    return {"returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out, "cancelled": cancelled,
            "wall_s": time.monotonic() - start, "sandbox": isolation.read_report(report_r)}


def serve(kind: str, module: str = "", preload: tuple[str, ...] = ()) -> int:
    """Server loop: import worker kind ``kind``'s modules (``module`` and ``preload`` as given: a kind
    registered by another package is not in this process's registry), then run one job per input line until
    end of input."""
    if not module:
        w = workers.kind(kind)
        module, preload = w.module, w.preload
    _PARENT[:] = [os.getppid()]
    _SERVER_PID[:] = [os.getpid()]
    # besides the kind's own: what every job imports after its fork (the scaffold's tempfile, the guard's
    # sqlite3), which a job would compile from source (its bytecode folder is a fresh, empty one)
    for name in (*preload, module, "evalgap.verifier.sandbox.guard", "tempfile", "sqlite3", "sqlite3.dbapi2"):
        importlib.import_module(name)
    isolation.preload()
    from evalgap.verifier.sandbox import channel, snapshot

    channel.preload()
    watched = getattr(sys.modules[module], "WATCHED_MODULES", None)  # the libraries the worker's check watches
    if watched:
        snapshot.prebuild(tuple(watched))
    if isolation.requested() != isolation.GUARD_ONLY:
        _CGROUP[:] = [isolation.ServerCgroup(str(os.getpid()))]
        _CGROUP[0].prepare()
    out = sys.stdout
    out.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    out.flush()
    _INPUT[:] = [_Input(sys.stdin.fileno())]
    while (line := _INPUT[0].readline()) is not None:
        if line.strip() == "cancel":  # for a job that had finished when it arrived: nothing to answer
            continue
        job: dict[str, Any] = {}
        try:
            job = json.loads(line)
            reply = _run_job(job)
        except Exception as exc:  # noqa: BLE001 - keep serving
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
        isolation.cleanup(job)  # the job's cgroup, once the client has its answer
    if _CGROUP:
        _CGROUP[0].leave()
    return 0


# ------------------------------------------------------------------ client side
class ForkServer:
    """A running fork server of one worker kind (not thread-safe: one job at a time; see :class:`ServerPool`).

    Args:
        kind: the worker kind's name (see :mod:`evalgap.verifier.sandbox.workers`).
        env: the server's environment (its children get the job's own environment).

    Raises:
        OSError: the server could not be started.
    """

    def __init__(self, kind: str, env: dict[str, str]) -> None:
        self.kind = kind
        self._lock = threading.Lock()  # writes to the server's input: a job, or a cancel of the running one
        self.proc = subprocess.Popen(
            [sys.executable, "-X", "utf8", "-m", "evalgap.verifier.sandbox.forkserver", kind,
             workers.kind(kind).module, ",".join(workers.kind(kind).preload)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True, text=True,
            cwd=env.get("HOME"),
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if not ready.strip():
            self.close()
            raise OSError(f"the {kind} fork server did not start")

    def run(self, job: dict[str, Any], cancel: threading.Event | None = None) -> dict[str, Any] | None:
        """Run one job; the server's reply; ``{"server_died": True, ...}`` when it died during the job; None
        when it could not take the job (the caller falls back). When ``cancel`` is set during the job, the
        server kills the job's process group and replies with ``cancelled: true`` (polled every 20 ms)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        running = threading.Event()
        try:
            with self._lock:
                self.proc.stdin.write(json.dumps(job) + "\n")
                self.proc.stdin.flush()
                running.set()
            if cancel is not None:
                threading.Thread(target=self._cancel_when, args=(cancel, running), daemon=True).start()
            line = self.proc.stdout.readline()
        except (OSError, ValueError):
            return None
        finally:
            with self._lock:  # a cancel still on its way is for this job, never for the next one
                running.clear()
        if not line:  # the job was sent: a rerun could repeat whatever killed the server
            return {"returncode": None, "timed_out": False, "server_died": True}
        reply = json.loads(line)
        return reply if isinstance(reply, dict) and "returncode" in reply else None

    def _cancel_when(self, cancel: threading.Event, running: threading.Event) -> None:
        while running.is_set():
            if cancel.wait(0.02):
                with self._lock:
                    if running.is_set():
                        try:
                            assert self.proc.stdin is not None
                            self.proc.stdin.write("cancel\n")  # the server ignores one that comes late
                            self.proc.stdin.flush()
                        except (OSError, ValueError):
                            pass
                return

    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.proc.poll() is None

    def close(self) -> None:
        """Stop the server at once (it holds no state; an idle server has no child). Without this, a server
        would also stop by itself at the end of its input, i.e. when the client exits."""
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        self.proc.kill()
        self.proc.wait()
        isolation.remove_server_cgroups(str(self.proc.pid))  # killed: the cgroup it sat in is empty now


class ServerPool:
    """Idle fork servers per kind, shared by the engine's worker threads.

    Servers being started count as coming: a thread that finds no idle server waits for one that is being
    started (by :meth:`start` or another thread) rather than starting yet another, unless every server
    coming is already awaited by other threads. So ``-j N`` starts N servers of a kind, not 2N.
    """

    def __init__(self) -> None:
        self._idle: dict[str, list[ForkServer]] = {}
        self._starting: dict[str, int] = {}
        self._waiting: dict[str, int] = {}
        self._cond = threading.Condition()
        self._all: list[ForkServer] = []

    def _new(self, kind: str, env: dict[str, str], background: bool = False) -> ForkServer:
        """Start a server of ``kind``, counted as coming while it starts. ``background``: the caller counted
        it already, and it goes to the idle pool in the same step as it stops counting as coming (so no
        waiting thread sees it as neither). Raises OSError."""
        with self._cond:
            if not background:
                self._starting[kind] = self._starting.get(kind, 0) + 1
        server = None
        try:
            server = ForkServer(kind, env)
        finally:
            with self._cond:
                self._starting[kind] -= 1
                if server is not None:
                    self._all.append(server)
                    if background:
                        self._idle.setdefault(kind, []).append(server)
                self._cond.notify_all()
        return server

    def acquire(self, kind: str, env: dict[str, str]) -> ForkServer:
        """An idle live server of ``kind``; else one being started; else a new one. Raises OSError if it
        cannot start."""
        with self._cond:
            while True:
                idle = self._idle.setdefault(kind, [])
                while idle:
                    server = idle.pop()
                    if server.alive():
                        return server
                if self._starting.get(kind, 0) <= self._waiting.get(kind, 0):
                    break
                self._waiting[kind] = self._waiting.get(kind, 0) + 1
                try:
                    self._cond.wait(timeout=120)
                finally:
                    self._waiting[kind] -= 1
        return self._new(kind, env)

    def start_background(self, kind: str, env: dict[str, str]) -> None:
        """Start one more server of ``kind`` in a background thread and put it in the idle pool (it counts as
        coming from this call on, so :meth:`acquire` waits for it; a server that cannot start is dropped)."""
        with self._cond:
            self._starting[kind] = self._starting.get(kind, 0) + 1

        def run() -> None:
            try:
                self._new(kind, env, background=True)
            except OSError:
                pass

        threading.Thread(target=run, daemon=True).start()

    def coming(self, kind: str) -> int:
        """How many servers of ``kind`` are idle or being started now."""
        with self._cond:
            return len(self._idle.get(kind, [])) + self._starting.get(kind, 0)

    def idle_count(self, kind: str) -> int:
        """How many servers of ``kind`` are idle now."""
        with self._cond:
            return len(self._idle.get(kind, []))

    def release(self, server: ForkServer) -> None:
        """Give ``server`` back (a dead one is dropped)."""
        if not server.alive():
            return
        with self._cond:
            self._idle.setdefault(server.kind, []).append(server)
            self._cond.notify_all()

    def close(self) -> None:
        """Stop every server."""
        with self._cond:
            servers, self._all, self._idle = self._all, [], {}
        for s in servers:
            s.close()


_POOL: ServerPool | None = None
_POOL_LOCK = threading.Lock()


def shutdown() -> None:
    """Stop every fork server of this process now (their running workers die with them); for the CLI's
    signal handler. A no-op when none was started."""
    for server in list(_POOL._all) if _POOL is not None else []:
        try:  # SIGKILL only: no lock, no pipe flush that a busy worker thread could be holding
            server.proc.kill()
        except BaseException:  # noqa: BLE001 - stop the others all the same
            continue


def pool() -> ServerPool:
    """The process-wide :class:`ServerPool` (closed when the process exits)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ServerPool()
            atexit.register(_POOL.close)
        return _POOL


def jail(job_path: str) -> None:
    """The spawned path's process (``python -m evalgap.verifier.sandbox.forkserver --job JOB.json``): run the one
    job in this process as a fork server's child would (never returns)."""
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    _child(job)


if __name__ == "__main__":
    if sys.argv[1] == "--job":
        jail(sys.argv[2])
    _args = [*sys.argv[1:], "", ""]  # KIND [MODULE PRELOAD,PRELOAD...]
    sys.exit(serve(_args[0], _args[1], tuple(name for name in _args[2].split(",") if name)))
