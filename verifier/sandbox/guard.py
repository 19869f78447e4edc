"""Audit-hook guard installed inside worker subprocesses before the code under check is imported.

Python's audit hooks (PEP 578) see every file open, process start and socket operation. Once
:func:`install` has run in a worker, the guard **blocks** (raises :class:`SandboxBlocked`, a
``PermissionError``) and **records**:

* writes outside the worker's private folder: ``open`` with a write, create, append or truncate flag, and
  ``os.remove``/``unlink``/``rename``/``replace``/``rmdir``/``mkdir``/``chmod``/``truncate``/... and
  ``shutil.rmtree`` on paths outside it (``/dev/null`` is allowed);
* new processes: ``subprocess.Popen``, ``os.system``, ``os.exec*``, ``os.posix_spawn``, ``os.spawn*``,
  ``os.fork``/``forkpty``, ``pty.spawn``, and signals to other processes (``os.kill``/``killpg``);
* network: ``socket.connect``/``bind``/``sendto``/``sendmsg``;
* ``os._exit`` (replaced by a function that raises, so the worker can still report).

Workers report :data:`BLOCKED` (the recorded events) in their result; the engine turns any blocked event
into ``unknown`` with reason ``blocked side effect``. Audit hooks cannot be removed, but code running in
the same interpreter can reach around them (``ctypes``, a C extension): this contains accidents and naive
gaming, it is **not** a security boundary (docs/engine.md). This module imports nothing heavy, so every
worker can use it; it must never import crosshair (that would disable icontract's checks).
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

__all__ = ["SandboxBlocked", "BLOCKED", "install", "installed_root"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_TRUNC
_PATH_EVENTS = {
    "os.remove": 1, "os.rename": 2, "os.replace": 2, "os.rmdir": 1, "os.mkdir": 1, "os.chmod": 1,
    "os.chown": 1, "os.truncate": 1, "os.symlink": 2, "os.link": 2, "os.utime": 1, "os.setxattr": 1,
    "os.removexattr": 1, "shutil.rmtree": 1, "shutil.copyfile": 2, "shutil.move": 2,
}
_PROCESS_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty", "pty.spawn", "os.startfile"}
_SOCKET_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"}
#: loading a C library, looking up a symbol, reading or writing raw memory: the ways around the other hooks
#: (the verifier's own ctypes users, z3, load their library before the guard is installed)
_CTYPES_EVENTS = {"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata", "ctypes.string_at",
                  "ctypes.wstring_at"}
_WATCHED = ({"open", "os.kill", "os.killpg"} | set(_PATH_EVENTS) | _PROCESS_EVENTS | _SOCKET_EVENTS
            | _CTYPES_EVENTS)

#: Human-readable descriptions of the operations blocked so far in this process (first 20).
BLOCKED: list[str] = []

_state: dict[str, Any] = {"root": None, "busy": False}


class SandboxBlocked(PermissionError):
    """Raised in the worker when the code under check attempts an operation the guard blocks."""


def installed_root() -> str | None:
    """The folder writes are confined to, or None when the guard is not installed in this process."""
    root = _state["root"]
    return root if isinstance(root, str) else None


def _inside(path: Any, root: str) -> bool:
    if isinstance(path, int):  # an already-open descriptor: its open was checked
        return True
    try:
        text = os.fsdecode(path)
    except TypeError:
        return False
    if text in ("/dev/null", "nul"):
        return True
    full = os.path.realpath(os.path.join(os.getcwd(), text))
    return full == root or full.startswith(root + os.sep)


def _block(what: str) -> NoReturn:
    if len(BLOCKED) < 20:
        BLOCKED.append(what)
    raise SandboxBlocked(f"evalgap sandbox blocked {what}")


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event not in _WATCHED or _state["busy"]:
        return
    root = _state["root"]
    _state["busy"] = True  # realpath/getcwd must not re-enter the hook's checks
    try:
        if event == "open":
            path, _mode, flags = args
            if isinstance(flags, int) and flags & _WRITE_FLAGS and not _inside(path, root):
                _block(f"a write to {os.fsdecode(path)!s} outside the worker folder")
        elif event in _PATH_EVENTS:
            for p in args[:_PATH_EVENTS[event]]:
                if p is not None and not _inside(p, root):
                    _block(f"{event} on {p!s} outside the worker folder")
        elif event in _PROCESS_EVENTS:
            _block(f"starting a process ({event})")
        elif event in ("os.kill", "os.killpg"):
            if not (event == "os.kill" and args and args[0] == os.getpid()):
                _block(f"a signal to another process ({event})")
        elif event in _SOCKET_EVENTS:
            _block(f"network access ({event})")
        elif event in _CTYPES_EVENTS:
            _block(f"a foreign-function or raw-memory call ({event})")
    finally:
        _state["busy"] = False


def _no_exit(code: int = 0) -> NoReturn:
    _block(f"os._exit({code}) (ending the worker without a report)")


def install(root: str) -> None:
    """Install the guard in this process, confining writes to ``root`` (made absolute and resolved).

    Args:
        root: the worker's private folder.

    Raises:
        RuntimeError: the guard is already installed with another root (hooks cannot be removed).
    """
    real = os.path.realpath(root)
    if _state["root"] is not None:
        if _state["root"] != real:
            raise RuntimeError(f"the sandbox guard is already installed for {_state['root']}")
        return
    _state["root"] = real
    os._exit = _no_exit  # type: ignore[assignment]
    sys.addaudithook(_hook)
