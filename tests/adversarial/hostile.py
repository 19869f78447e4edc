"""Shared helpers of the adversarial sandbox suite (issue 17): the world a hostile target is run in, and the
checks that nothing outside the job's folder was touched.

An :class:`Arena` is one test's world, all under its ``tmp_path``:

* ``project/``: the target project (``spec.req``, ``tgt.py``) with a canary tree ``project/pkg/``;
* ``home/``: a fake ``$HOME`` of the user running evalgap, itself a canary tree (``.bashrc``, ``.ssh``);
* ``cache/``: ``$EVALGAP_CACHE_DIR``, holding a canary tree ``cache/canary/`` beside evalgap's own entries;
* ``jobtmp/``: evalgap's ``$TMPDIR`` (where its job folders are made);
* listeners that must never be reached: TCP and UDP on localhost, an abstract and a named UNIX socket;
* a random numeric token: every effect of a hostile target (a file it creates, a process it starts) carries
  it in its name, argv or environment, so it can be found wherever it lands.

:meth:`Arena.leaks` lists every way the promise was broken: a canary tree that changed (contents, modes,
symlinks, entries), a path anywhere under the test's folder (or the shared folders) whose name carries the
token, a connection to the listener, a process that carries the token. The commands are run as a user runs
them (:func:`run_evalgap`: the ``evalgap`` console script beside ``sys.executable``, an explicit environment,
a timeout). Nothing here imports evalgap: the suite is black-box.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["EVALGAP", "Arena", "Listener", "Outcome", "plant_canary", "tree_digest", "diff_digests",
           "processes_with", "kill_pids", "run_evalgap", "git", "SPEC", "BENIGN_TARGET"]

#: The console script, as a user's shell would find it in the active environment.
EVALGAP = Path(sys.executable).parent / "evalgap"

#: The spec every hostile target is checked against: one formal requirement on ``f``.
SPEC = """\
spec adv "adversarial sandbox target"
  target: tgt.py

function f(n: int) -> int
  requirement F-1 "Returns its argument."
    ensures result == n
"""

#: The base version of the target in the gate's repositories (the head commit makes it hostile).
BENIGN_TARGET = '''\
"""A well-behaved target."""


def f(n: int) -> int:
    """Return ``n``."""
    return n
'''

_GIT_ARGS = ["-c", "user.name=evalgap-adversarial", "-c", "user.email=adversarial@evalgap.invalid",
             "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]


# ------------------------------------------------------------------ canary trees
def plant_canary(root: Path) -> None:
    """Create a canary tree at ``root``: files of several modes, nested folders, an empty folder, symlinks
    (to a file and to a folder), a fake ``.bashrc`` and ``.ssh/authorized_keys``, and the files hostile
    targets aim at (``a.txt`` and ``victim-py.txt`` for Python-level attacks, ``secret.txt`` and
    ``victim-c.txt`` for libc-level ones)."""
    root.mkdir(parents=True, exist_ok=True)
    files: dict[str, tuple[bytes, int]] = {
        "a.txt": (b"canary a\n", 0o644),
        "secret.txt": (b"canary secret\n", 0o600),
        "run.sh": (b"#!/bin/sh\necho canary\n", 0o755),
        "victim-py.txt": (b"delete me if you can (python)\n", 0o644),
        "victim-c.txt": (b"delete me if you can (libc)\n", 0o644),
        ".bashrc": (b"# canary bashrc\n", 0o644),
        ".ssh/authorized_keys": (b"ssh-ed25519 AAAAcanary canary@example\n", 0o600),
        "sub/b.txt": (b"canary b\n", 0o640),
        "sub/deep/c.bin": (bytes(range(256)), 0o444),
    }
    for rel, (data, mode) in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(mode)
    (root / "empty").mkdir()
    (root / ".ssh").chmod(0o700)
    (root / "sub").chmod(0o750)
    (root / "link").symlink_to("a.txt")
    (root / "dirlink").symlink_to("sub")


def tree_digest(root: Path) -> dict[str, str]:
    """Everything observable about the tree at ``root`` (symlinks not followed): relative path -> type,
    permission bits and content hash (regular files) or link target (symlinks)."""
    out: dict[str, str] = {}

    def visit(path: Path, rel: str) -> None:
        try:
            st = os.lstat(path)
        except OSError as exc:
            out[rel] = f"unreadable ({exc.strerror})"
            return
        mode = f"{stat.S_IMODE(st.st_mode):04o}"
        if stat.S_ISLNK(st.st_mode):
            out[rel] = f"symlink -> {os.readlink(path)}"
        elif stat.S_ISREG(st.st_mode):
            try:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            except OSError as exc:
                digest = f"unreadable ({exc.strerror})"
            out[rel] = f"file {mode} {digest}"
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = f"dir {mode}"
            try:
                names = sorted(os.listdir(path))
            except OSError as exc:
                out[rel] += f" unlistable ({exc.strerror})"
                return
            for name in names:
                visit(path / name, f"{rel}/{name}" if rel != "." else name)
        else:
            out[rel] = f"special {stat.S_IFMT(st.st_mode):o} {mode}"

    visit(root, ".")
    return out


def diff_digests(label: str, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Human-readable differences between two digests of the tree ``label``."""
    lines = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old != new:
            lines.append(f"{label}/{rel}: {old or 'absent'} -> {new or 'absent'}")
    return lines


def _restore_modes(root: Path) -> None:
    """Give the owner rwx on every folder under ``root`` again (a target may have chmod-ed them to 000), so
    that the test's temporary folder can be removed when not running as root."""
    for dirpath, dirnames, _ in os.walk(root):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            try:
                if not os.path.islink(path):
                    os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) | stat.S_IRWXU)
            except OSError:
                pass


def paths_with(token: str, roots: list[Path]) -> list[str]:
    """Every path under ``roots`` (symlinks not followed) whose name contains ``token``."""
    found = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in (*dirnames, *filenames):
                if token in name:
                    found.append(os.path.join(dirpath, name))
    return sorted(found)


# ------------------------------------------------------------------ processes
def processes_with(token: str) -> list[tuple[int, str]]:
    """Processes (other than this one) whose command line or environment contains ``token``: pid and
    command line."""
    needle = token.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        blobs = []
        for part in ("cmdline", "environ"):
            try:
                blobs.append(Path(f"/proc/{entry}/{part}").read_bytes())
            except OSError:
                blobs.append(b"")
        if any(needle in blob for blob in blobs):
            found.append((int(entry), blobs[0].replace(b"\0", b" ").decode("utf-8", "replace").strip()))
    return found


def kill_pids(pids: list[int]) -> None:
    """SIGKILL each of ``pids`` (processes this suite's targets started), ignoring those already gone."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# ------------------------------------------------------------------ the listener
class Listener:
    """Listeners that record every connection or datagram sent to them: TCP and UDP on 127.0.0.1 (the same
    ephemeral port number), an abstract UNIX socket ``\\0evalgap-adv-TOKEN`` and a named UNIX socket
    ``listener.sock`` in ``folder`` (the arena's root: a named socket is not separated by a network
    namespace).

    Attributes:
        port: the TCP (and UDP) port.
        connections: one line per connection accepted or datagram received (where, and the first bytes).
    """

    def __init__(self, token: str = "", folder: Path | None = None) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port: int = self._sock.getsockname()[1]
        self.connections: list[str] = []
        self._others: list[tuple[str, socket.socket]] = []
        try:
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            udp.bind(("127.0.0.1", self.port))
            self._others.append(("udp", udp))
        except OSError:
            pass
        if token:
            abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            abstract.bind(f"\0evalgap-adv-{token}")
            abstract.listen(8)
            self._others.append(("abstract unix", abstract))
        if folder is not None:
            named = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            named.bind(str(folder / "listener.sock"))
            named.listen(8)
            self._others.append(("named unix", named))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(self._sock, selectors.EVENT_READ, "tcp")
        for label, sock in self._others:
            sel.register(sock, selectors.EVENT_READ, label)
        while not self._stop.is_set():
            for key, _ in sel.select(timeout=0.05):
                fileobj, label = key.fileobj, key.data
                assert isinstance(fileobj, socket.socket)
                sock = fileobj
                try:
                    if label == "udp":
                        data, peer = sock.recvfrom(200)
                        self.connections.append(f"udp datagram from {peer} {data[:80]!r}")
                        continue
                    conn, peer = sock.accept()
                except OSError:
                    continue
                index = len(self.connections)
                self.connections.append(f"{label} connection from {peer!r}")  # recorded before any data
                try:
                    conn.settimeout(0.2)
                    data = conn.recv(200)
                    self.connections[index] += f" sending {data[:80]!r}"
                except OSError:
                    pass
                finally:
                    conn.close()
        sel.close()

    def close(self) -> None:
        """Stop listening."""
        self._stop.set()
        self._thread.join(timeout=2)
        self._sock.close()
        for _, sock in self._others:
            sock.close()


# ------------------------------------------------------------------ running commands
@dataclass(frozen=True)
class Outcome:
    """What one evalgap command did.

    Attributes:
        args: its arguments (after ``evalgap``).
        returncode: its exit code (negative: killed by that signal), None when it ran past the timeout
            (its process group was then killed).
        stdout: its standard output.
        stderr: its standard error.
        wall_s: wall-clock seconds it ran.
    """

    args: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    wall_s: float

    def describe(self) -> str:
        """The command, its exit code and what it reported (each requirement's verdicts and reasons for a
        JSON report, else the tail of its output), and the tail of its standard error, for a failure message."""
        report = self.json_report()
        if report is not None:
            lines = []
            for req in report.get("requirements", []):
                if not isinstance(req, dict):
                    continue
                if "verdicts" in req:  # check
                    found = "; ".join(f"{v.get('engine')}: {v.get('verdict')} ({v.get('reason')})"
                                      for v in req["verdicts"] if isinstance(v, dict))
                else:  # gate
                    found = f"head: {req.get('head')}; base: {req.get('base')}"
                lines.append(f"  {req.get('id')}: {req.get('verdict') or req.get('transition')}: {found}"[:600])
            shown = "\n".join(lines) or "  (no requirements)"
        else:
            shown = self.stdout[-1200:]
        return (f"evalgap {' '.join(self.args)} -> exit {self.returncode} after {self.wall_s:.1f} s\n"
                f"--- reported ---\n{shown}\n--- stderr (tail) ---\n{self.stderr[-800:]}")

    def json_report(self) -> dict[str, Any] | None:
        """Standard output parsed as a JSON object, or None when it is not one."""
        try:
            data = json.loads(self.stdout)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None


def run_evalgap(args: list[str], *, env: dict[str, str], cwd: Path, logs: Path,
                timeout_s: float = 60.0) -> Outcome:
    """Run ``evalgap ARGS`` as a user would: the console script, in its own session, standard input closed,
    standard output and error to files in ``logs`` (so a leftover process holding them cannot hang the
    test); after ``timeout_s`` seconds its process group is killed and the return code is None."""
    logs.mkdir(parents=True, exist_ok=True)
    n = len(list(logs.glob("*.out")))
    out_path, err_path = logs / f"{n:02d}.out", logs / f"{n:02d}.err"
    start = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen([str(EVALGAP), *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        rc: int | None
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            rc = None
    wall = time.monotonic() - start
    return Outcome(tuple(args), rc, out_path.read_text("utf-8", "replace"), err_path.read_text("utf-8", "replace"),
                   wall)


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (fixed identity, no signing, no user configuration) and return its output."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "LANG": "C.UTF-8"}
    return subprocess.run(["git", *_GIT_ARGS, *args], cwd=repo, env=env, capture_output=True, text=True,
                          check=True, timeout=30).stdout


# ------------------------------------------------------------------ the arena
@dataclass
class Arena:
    """One test's world (see the module docstring). Build it with :meth:`create`, end it with :meth:`close`.

    Attributes:
        root: the test's temporary folder; everything below it except the job folders is "outside".
        token: the random numeric token every hostile effect carries.
        project: the target project (or git repository), holding the canary tree ``pkg/``.
        home: the fake ``$HOME`` (a canary tree).
        cache: ``$EVALGAP_CACHE_DIR`` (with the canary tree ``canary/``).
        jobtmp: ``$TMPDIR`` of the command.
        shared: folders shared between tests that evalgap writes to (Hypothesis's home): scanned for the
            token, not hashed.
        global_prefix: a path prefix in the system's temporary folder, outside ``root``, for markers.
        listener: the TCP listener.
    """

    root: Path
    token: str
    project: Path
    home: Path
    cache: Path
    jobtmp: Path
    shared: list[Path]
    global_prefix: str
    listener: Listener
    _before: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def create(cls, root: Path, hypothesis_home: Path) -> Arena:
        """Plant the canaries under ``root`` and start the listener (the project folder is left for the
        test to fill; :meth:`snapshot` once it is complete)."""
        token = "4242" + "".join(secrets.choice("0123456789") for _ in range(12))
        project, home, cache, jobtmp = root / "project", root / "home", root / "cache", root / "jobtmp"
        plant_canary(home)
        plant_canary(cache / "canary")
        plant_canary(project / "pkg")
        jobtmp.mkdir()
        prefix = os.path.join(tempfile.gettempdir(), f"evalgap-adv-{token}")
        return cls(root, token, project, home, cache, jobtmp, [hypothesis_home], prefix, Listener(token, root))

    @property
    def canary_dirs(self) -> list[Path]:
        """The canary trees a hostile target aims at: the fake home, the project's ``pkg``, the cache's."""
        return [self.home, self.project / "pkg", self.cache / "canary"]

    def env(self) -> dict[str, str]:
        """The explicit environment of a command: ``HOME`` the fake home, ``EVALGAP_CACHE_DIR`` the cache,
        ``TMPDIR`` the job folder, Hypothesis's home the shared one, ``XDG_CONFIG_HOME`` (where evalgap keeps its
        cache key) beside the canaries; nothing else of the test's own."""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
               "EVALGAP_CACHE_DIR": str(self.cache), "TMPDIR": str(self.jobtmp),
               "EVALGAP_HYPOTHESIS_HOME": str(self.shared[0]),
               # evalgap's own cache key (the parent writes it, as it should) lives outside the canary home
               "XDG_CONFIG_HOME": str(self.root / "config")}
        if "EVALGAP_SANDBOX" in os.environ:  # EVALGAP_SANDBOX=python-guard: see the suite fail without the OS layer
            env["EVALGAP_SANDBOX"] = os.environ["EVALGAP_SANDBOX"]
        return env

    def _trees(self) -> dict[str, Path]:
        return {"project": self.project, "home": self.home, "cache/canary": self.cache / "canary"}

    def snapshot(self) -> None:
        """Record the digests of the project, the home and the cache canary (call before the command)."""
        self._before = {label: tree_digest(path) for label, path in self._trees().items()}

    def run(self, args: list[str], cwd: Path | None = None, timeout_s: float = 60.0) -> Outcome:
        """Run ``evalgap ARGS`` in this arena's environment (cwd: the project)."""
        return run_evalgap(args, env=self.env(), cwd=cwd or self.project, logs=self.root / "logs",
                           timeout_s=timeout_s)

    def leaks(self, late_s: float = 0.0) -> list[str]:
        """Everything that broke the promise: processes carrying the token are looked for just after the
        command (0.1 s, for a child between fork and exec) and, when ``late_s`` is given (delayed attacks),
        again after waiting that long, when everything else is checked too (a late write)."""
        time.sleep(0.1)
        early = dict(processes_with(self.token))
        if late_s:
            time.sleep(late_s)
        problems: list[str] = []
        for label, path in self._trees().items():
            problems += diff_digests(label, self._before[label], tree_digest(path))
        for found in paths_with(self.token, [self.root, *self.shared]):
            problems.append(f"created outside the job folder: {found}")
        tmp = Path(self.global_prefix).parent
        for marker in sorted(tmp.glob(Path(self.global_prefix).name + "*")):
            problems.append(f"created outside the job folder: {marker}")
        problems += [f"localhost listener: {c}" for c in self.listener.connections]
        late = dict(processes_with(self.token))
        problems += [f"process left: pid {pid}: {cmd[:200]}" for pid, cmd in sorted({**early, **late}.items())]
        return problems

    def close(self) -> None:
        """Kill the processes carrying the token, remove the markers outside ``root``, restore folder modes,
        stop the listener."""
        kill_pids([pid for pid, _ in processes_with(self.token)])
        tmp = Path(self.global_prefix).parent
        for path in tmp.glob(Path(self.global_prefix).name + "*"):
            try:
                if path.is_dir() and not path.is_symlink():
                    _restore_modes(path)
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink()
            except OSError:
                pass
        _restore_modes(self.root)
        self.listener.close()
