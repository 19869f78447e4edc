"""Operating-system isolation of one worker job, applied in the process that is about to run the worker.

:func:`enter` runs in a fresh single-threaded process (the fork server's child, or the spawned jail), after
the trusted set-up (limits, standard streams, the worker module imported, its ``prepare`` step) and before
any code under check. In order, each step used when the kernel allows it:

1. ``unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID)`` (the user namespace maps the caller's own uid and
   gid, so files keep their owners; as root without user namespaces, ``CLONE_NEWNET | CLONE_NEWPID`` alone):
   no network interface but a downed loopback, and the next fork is PID 1 of a new PID namespace;
2. two forks: the first child is PID 1 of the namespace and only waits for the second, PID 2, which runs the
   worker (PID 1 ignores signals it has no handler for, SIGKILL from inside included, so a target that kills
   itself must not run as PID 1); each waiting process exits as its child did. When PID 1 ends, or is killed
   (the server kills this process's group, and ``PR_SET_PDEATHSIG`` kills PID 1 when this process dies), the
   kernel kills every process in the namespace: nothing outlives the job, even after ``setsid``. The code
   under check sees no process outside its namespace, so cannot signal the fork server or evalgap;
3. in the worker (PID 2): at most 256 processes (a ``pids`` cgroup of its own where the cgroup file system is writable,
   ``pids.max``; else ``RLIMIT_NPROC`` inside a user namespace, which real root is exempt from), Landlock
   (:mod:`.landlock`: writes only in the job's folder and ``/dev/null``; no TCP; no signals out of the domain), every capability dropped
   (bounding, ambient, effective, permitted, inheritable) under ``no_new_privs``, and a seccomp filter
   (:mod:`.seccomp`: no ``chmod``/``chown``/``utime``/xattr changes, which Landlock does not cover, and no
   ``unshare``/``setns``/``mount``).

The mechanisms in force are written to the job's report pipe (closed before the worker starts, so the code
under check cannot write to it) and end up in every report as ``sandbox: os (landlock abi 7, netns, pidns,
userns)``, or ``sandbox: python-guard`` when none could be applied: then only the audit-hook guard
(:mod:`.guard`), rlimits and the process group hold. ``EVALGAP_SANDBOX=python-guard`` forces that fallback
(for tests and for comparison); the default, ``auto``, uses whatever the kernel offers.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import threading
import time
from typing import Any

from evalgap.verifier.sandbox import landlock, seccomp

__all__ = ["requested", "enter", "describe", "record", "mark", "summary", "probe", "preload", "read_report",
           "cleanup", "GUARD_ONLY"]

_real_exit = os._exit  # the guard replaces os._exit inside workers
_CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_NEWPID = 0x10000000, 0x40000000, 0x20000000
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 1, 24, 47, 4
_CAP_VERSION_3 = 0x20080522
_NPROC = 256  # processes per job (inside its own user namespace)

#: The description of a job that ran without OS isolation.
GUARD_ONLY = "python-guard"


def requested() -> str:
    """``python-guard`` when ``EVALGAP_SANDBOX`` asks for the fallback, else ``auto``."""
    value = os.environ.get("EVALGAP_SANDBOX", "auto").strip().lower()
    return GUARD_ONLY if value in (GUARD_ONLY, "guard", "off", "0", "none") else "auto"


def describe(mechanisms: list[str]) -> str:
    """``os (m1, m2, ...)``, or ``python-guard`` when none of Landlock and the network and PID namespaces is
    among ``mechanisms`` (a seccomp filter or a process limit alone confines nothing that matters)."""
    core = any(m.startswith("landlock") or m in ("netns", "pidns") for m in mechanisms)
    return f"os ({', '.join(mechanisms)})" if core else GUARD_ONLY


_LIB: list[ctypes.CDLL] = []


def _libc() -> ctypes.CDLL:
    if not _LIB:  # loaded once per process (a fork server loads it before forking its jobs)
        _LIB.append(ctypes.CDLL(None, use_errno=True))
    return _LIB[0]


def _unshare(lib: ctypes.CDLL) -> list[str]:
    uid, gid = os.getuid(), os.getgid()
    if lib.unshare(_CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWPID) == 0:
        try:
            with open("/proc/self/setgroups", "w") as f:
                f.write("deny")
            with open("/proc/self/uid_map", "w") as f:
                f.write(f"{uid} {uid} 1")
            with open("/proc/self/gid_map", "w") as f:
                f.write(f"{gid} {gid} 1")
        except OSError:
            pass  # unmapped: the job runs as the overflow uid, still confined
        return ["netns", "pidns", "userns"]
    if lib.unshare(_CLONE_NEWNET | _CLONE_NEWPID) == 0:
        return ["netns", "pidns"]
    if lib.unshare(_CLONE_NEWNET) == 0:
        return ["netns"]
    return []


def _cgroup_base() -> str | None:
    """The folder job cgroups are made in: the cgroup v1 ``pids`` hierarchy, or under this process's cgroup
    (v2) when its ``pids`` controller is delegated; None when there is none."""
    if os.path.isfile("/sys/fs/cgroup/pids/cgroup.procs"):
        return "/sys/fs/cgroup/pids"
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            own = next((line.split(":", 2)[2].strip() for line in f if line.startswith("0::")), None)
        if own is None:
            return None
        base = os.path.join("/sys/fs/cgroup", own.lstrip("/"))
        with open(os.path.join(base, "cgroup.subtree_control"), encoding="utf-8") as f:
            return base if "pids" in f.read().split() else None
    except OSError:
        return None


def _cgroup_dir(job: dict[str, Any]) -> str | None:
    """The job's own pids cgroup (``cgroup_dir`` when the fork server made it, else ``cgroup``, named after
    the job folder, under :func:`_cgroup_base`); None when there is none to make."""
    if job.get("cgroup_dir"):
        return str(job["cgroup_dir"])
    name = job.get("cgroup")
    base = _cgroup_base() if name else None
    return os.path.join(base, name) if base and name else None


def _new_cgroup(folder: str) -> bool:
    """Make the pids cgroup ``folder`` with ``pids.max``; False when it cannot be made."""
    try:
        os.mkdir(folder, 0o700)
        with open(os.path.join(folder, "pids.max"), "w") as f:
            f.write(str(_NPROC))
    except OSError:
        return False
    return True


def _move_here(folder: str) -> bool:
    try:
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write("0")
    except OSError:
        return False
    return True


def _in_cgroup(folder: str) -> bool:
    """Whether this process is in the cgroup ``folder`` (read from ``/proc/self/cgroup``)."""
    tail = "/" + os.path.basename(folder)
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            return any(line.rstrip("\n").endswith(tail) for line in f)
    except OSError:
        return False


def _pids_cgroup(job: dict[str, Any]) -> bool:
    """Put this process in a cgroup of its own with ``pids.max`` (best effort; needs a writable cgroup file
    system, e.g. root outside a container); True when in force. A job the fork server forked inside a fresh
    cgroup (``cgroup_dir``, :class:`ServerCgroup`) only checks that it is there."""
    if job.get("cgroup_dir"):
        return _in_cgroup(str(job["cgroup_dir"]))
    folder = _cgroup_dir(job)
    return folder is not None and _new_cgroup(folder) and _move_here(folder)


class ServerCgroup:
    """A fork server's next job cgroup: the server moves itself into a fresh pids cgroup while a job runs, so
    that it forks the next job inside it, and the job need not move. Moving a process into a cgroup waits
    for the kernel's read-copy-update grace period (7-14 ms a job measured on a 2-core machine, cgroup v1);
    a fork inherits its parent's cgroup at no cost. The server leaves the job's cgroup before the job ends,
    so the job's processes are alone under its ``pids.max``.

    Args:
        tag: the server's part of the cgroup names (``evalgap-srv<tag>-<n>``).
    """

    def __init__(self, tag: str) -> None:
        self.tag, self.n = tag, 0
        self.base = _cgroup_base()
        self.ready: str | None = None  # the cgroup the server is in now, made for its next job
        self.home = _own_pids_cgroup()
        if self.base is not None:
            _sweep(self.base)

    def prepare(self) -> None:
        """Move into a fresh cgroup for the next job, unless already there (or cgroups cannot be made)."""
        if self.ready is not None or self.base is None:
            return
        folder = os.path.join(self.base, f"evalgap-srv{self.tag}-{self.n}")
        self.n += 1
        if _new_cgroup(folder) and _move_here(folder):
            self.ready = folder
        else:
            self.base = None  # not writable here: jobs fall back to moving themselves (or to no cgroup)
            try:
                os.rmdir(folder)
            except OSError:
                pass

    def take(self) -> str | None:
        """The cgroup the next forked job inherits (then no longer the server's), or None."""
        folder, self.ready = self.ready, None
        return folder

    def leave(self) -> None:
        """At the server's end: move back to the cgroup it started in and remove the one it sat in."""
        folder, self.ready = self.ready, None
        if folder is not None and self.home is not None and _move_here(self.home):
            try:
                os.rmdir(folder)
            except OSError:
                pass


def _own_pids_cgroup() -> str | None:
    """This process's cgroup folder in the v1 ``pids`` hierarchy (or its v2 cgroup), or None."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if "pids" in controllers.split(",") and os.path.isdir("/sys/fs/cgroup/pids"):
                    return os.path.join("/sys/fs/cgroup/pids", path.lstrip("/"))
                if controllers == "" and not os.path.isdir("/sys/fs/cgroup/pids"):
                    return os.path.join("/sys/fs/cgroup", path.lstrip("/"))
    except (OSError, ValueError):
        return None
    return None


def _sweep(base: str, now: float | None = None) -> None:
    """Remove the empty job cgroups that servers or jobs killed before their clean-up left in ``base``: a
    server's (``evalgap-srv<pid>-<n>``) once that process is gone, a job's own after a minute (it is made
    and entered at once; an empty cgroup cannot be removed while a process is in it)."""
    now = time.time() if now is None else now
    try:
        names = [n for n in os.listdir(base) if n.startswith("evalgap-")]
    except OSError:
        return
    for name in names:
        folder = os.path.join(base, name)
        if name.startswith("evalgap-srv"):
            pid = name[len("evalgap-srv"):].split("-", 1)[0]
            if not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
                continue
        else:
            try:
                if now - os.stat(folder).st_mtime < 60:
                    continue
            except OSError:
                continue
        try:
            os.rmdir(folder)
        except OSError:
            pass


def remove_server_cgroups(tag: str) -> None:
    """Remove the cgroups a fork server with ``tag`` left behind (it was killed before :meth:`leave`)."""
    base = _cgroup_base()
    if base is None:
        return
    try:
        names = [n for n in os.listdir(base) if n.startswith(f"evalgap-srv{tag}-")]
    except OSError:
        return
    for name in names:
        try:
            os.rmdir(os.path.join(base, name))
        except OSError:
            pass


def cleanup(job: dict[str, Any]) -> None:
    """After the job ended (every process of its PID namespace is gone): remove its pids cgroup, if any."""
    folder = _cgroup_dir(job)
    if folder is None or not os.path.isdir(folder):
        return
    for _ in range(50):
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:  # processes still exiting
            time.sleep(0.002)


def _drop_capabilities(lib: ctypes.CDLL) -> None:
    for cap in range(64):
        if lib.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:  # EINVAL: no such cap
            break
    lib.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # two {effective, permitted, inheritable} words, all zero
    lib.capset(header, data)


def _mirror_exit(pid: int, child_is_init: bool = False) -> None:
    """In a waiting process: wait for ``pid`` and end exactly as it did (the same exit code, or killed by the
    same signal). PID 1 of a namespace cannot kill itself (the kernel ignores its own signals), so there a
    signal death becomes exit code 128 + signal, and the process waiting for PID 1 (``child_is_init``) turns
    such a code back into that signal."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            _real_exit(1)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    code = os.waitstatus_to_exitcode(status) if not sig else 0
    if child_is_init and 128 < code < 128 + 65:
        sig, code = code - 128, 0
    if sig and os.getpid() != 1:
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
    _real_exit(128 + sig if sig else code & 0xFF)


def enter(job: dict[str, Any], writable: list[str]) -> None:
    """Isolate the current process for the job (see the module docstring); returns in the process that must
    run the worker (possibly a new one), never in a waiting parent.

    Args:
        job: the job record; uses ``sandbox`` (``python-guard`` skips every step) and ``report_fd`` (a pipe's
            write end for the description, closed here; absent or -1: not reported).
        writable: folders and files the worker may write (the job's folder, ``/dev/null``).
    """
    report_fd = int(job.get("report_fd", -1))
    mechanisms: list[str] = []
    if job.get("sandbox") != GUARD_ONLY:
        lib = _libc()
        namespaces = _unshare(lib)
        if "pidns" in namespaces:
            pid = os.fork()
            if pid != 0:
                if report_fd >= 0:
                    os.close(report_fd)
                _mirror_exit(pid, child_is_init=True)
            lib.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # same process group: killpg reaches it too
            # This process is PID 1 of the new namespace, and PID 1 ignores every signal it has no handler
            # for, SIGKILL from inside included: a target that kills itself would live on and be checked as
            # if it had returned. So PID 1 only waits (when it ends, the kernel kills the whole namespace) and
            # the worker runs as PID 2, where signals mean what they mean elsewhere.
            pid = os.fork()
            if pid != 0:
                if report_fd >= 0:
                    os.close(report_fd)
                _mirror_exit(pid)
            lib.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if _pids_cgroup(job):
            namespaces.append("pids.max")
        elif "userns" in namespaces and os.getuid() != 0:  # real root is exempt from RLIMIT_NPROC
            resource.setrlimit(resource.RLIMIT_NPROC, (_NPROC, _NPROC))
            namespaces.append("nproc")
        version = landlock.abi()
        if version:
            try:
                landlock.restrict(writable, version)
                mechanisms.append(f"landlock abi {version}")
            except landlock.LandlockError:
                pass
        _drop_capabilities(lib)
        mechanisms += namespaces
        if seccomp.install():
            mechanisms.append("seccomp")
    if report_fd >= 0:
        try:
            os.write(report_fd, describe(mechanisms).encode())
        finally:
            os.close(report_fd)


def _exit_gone(code: int = 0) -> None:
    raise PermissionError("evalgap: the worker's raw exit is not available to the code under check")


def forget_exit() -> None:
    """In a job's worker process, after :func:`enter`: drop this module's reference to the raw ``os._exit``
    (the worker never waits for a child as PID 1 does), and the C library handles the isolation loaded, whose
    functions already looked up (``syscall``, ``prctl``) a target could call without the guard seeing a
    ``dlsym`` (a red-team target called ``exit_group`` through Landlock's). Raw memory access through
    ``ctypes`` stays possible (docs/engine.md, known gaps)."""
    globals()["_real_exit"] = _exit_gone
    _LIB.clear()
    landlock.forget()
    seccomp.forget()
    from evalgap.verifier.sandbox import lifetime

    lifetime.forget()


def preload() -> None:
    """Load libc and ask the kernel its Landlock ABI now (a fork server does this once, before its jobs)."""
    _libc()
    landlock.abi()
    seccomp.prepare()


def read_report(fd: int) -> str:
    """Read and close the report pipe's read end (after the job ended): the job's description, or
    ``python-guard`` when nothing was written (a job that died before isolating claims nothing)."""
    try:
        os.set_blocking(fd, False)
        data = os.read(fd, 4096).decode("utf-8", "replace")
    except OSError:
        data = ""
    finally:
        os.close(fd)
    return data if data.startswith("os (") else GUARD_ONLY


_SEEN: list[str] = []
_PROBE: list[str] = []
_PROBE_LOCK = threading.Lock()


def record(description: str) -> None:
    """Note what a finished job ran under (read back with :func:`summary`)."""
    _SEEN.append(description)


def mark() -> int:
    """A position in the record of jobs, for :func:`summary` of the jobs run after it."""
    return len(_SEEN)


def summary(since: int = 0) -> str:
    """What the jobs recorded since ``since`` ran under: the weakest description (``python-guard`` if any job
    had no OS isolation), or what a job would run under now (:func:`probe`) when no job ran."""
    seen = set(_SEEN[since:])
    if not seen:
        return probe()
    if GUARD_ONLY in seen:
        return GUARD_ONLY
    return min(seen, key=lambda d: (d.count(","), d))


def probe() -> str:
    """What a job started now would run under: a throw-away fork tries the steps (once per process and
    ``EVALGAP_SANDBOX`` value)."""
    if requested() == GUARD_ONLY:
        return GUARD_ONLY
    with _PROBE_LOCK:
        if not _PROBE:
            preload()
            r, w = os.pipe()
            job = {"report_fd": w, "cgroup": f"evalgap-probe-{os.getpid()}"}
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the forked probe
                try:
                    os.close(r)
                    enter(job, ["/dev/null"])
                finally:
                    _real_exit(0)
            os.close(w)
            os.waitpid(pid, 0)
            cleanup(job)
            _PROBE.append(read_report(r))
        return _PROBE[0]
