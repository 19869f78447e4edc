"""Audit-hook guard installed inside worker subprocesses before the code under check is imported.

Python's audit hooks (PEP 578) see every file open, process start and socket operation. Once
:func:`install` has run in a worker, the guard **blocks** (raises :class:`SandboxBlocked`, a
``PermissionError``) and **records**:

* writes outside the worker's private folder: ``open`` with a write, create, append or truncate flag, and
  ``os.remove``/``unlink``/``rename``/``replace``/``rmdir``/``mkdir``/``chmod``/``truncate``/... and
  ``shutil.rmtree`` on paths outside it (``/dev/null`` is allowed);
  relative names given with ``dir_fd`` are resolved against that descriptor's folder; ``os.fchmod``/``fchown``/
  ``futime``/``ftruncate`` against the file the descriptor is open on; ``os.open``, ``os.mkfifo`` and ``os.mknod``
  are wrapped (their audit events carry no ``dir_fd``, or do not exist), ``sqlite3.connect`` is checked like an
  open and ``ATTACH DATABASE`` refused (an authorizer on every connection);
* new processes: ``subprocess.Popen``, ``os.system``, ``os.exec*``, ``os.posix_spawn``, ``os.spawn*``,
  ``os.fork``/``forkpty``, ``pty.spawn``, and signals to other processes (``os.kill``/``killpg``);
* network: ``socket.connect``/``bind``/``sendto``/``sendmsg``;
* ``gc.get_objects``/``gc.get_referrers`` (the way to the tamper check's own data);
* ``os._exit`` and ``posix._exit`` (replaced by a function that raises, so the worker can still report; the
  scaffold keeps a result only from a worker that ended through it, see
  :meth:`evalgap.verifier.sandbox.channel.Channel.send`).

Workers report :data:`BLOCKED` (the recorded events) in their result; the engine turns any blocked event
into ``unknown`` with reason ``blocked side effect``. Audit hooks cannot be removed, but code running in
the same interpreter can reach around them (``ctypes``, a C extension): this contains accidents and naive
gaming, it is **not** a security boundary (docs/engine.md). This module imports nothing heavy, so every
worker can use it; it must never import crosshair (that would disable icontract's checks).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Mapping, NoReturn

__all__ = ["SandboxBlocked", "BLOCKED", "install", "installed_root"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_TRUNC
#: event -> (index of a path argument, index of its dir_fd argument or None), per Python's audit-event table.
_PATH_EVENTS: dict[str, tuple[tuple[int, int | None], ...]] = {
    "os.remove": ((0, 1),), "os.rmdir": ((0, 1),), "os.mkdir": ((0, 2),), "os.chmod": ((0, 2),),
    "os.chown": ((0, 3),), "os.rename": ((0, 2), (1, 3)), "os.replace": ((0, 2), (1, 3)),
    "os.link": ((0, 2), (1, 3)), "os.symlink": ((0, None), (1, 2)), "os.utime": ((0, 3),),
    "os.truncate": ((0, None),), "os.setxattr": ((0, None),), "os.removexattr": ((0, None),),
    "shutil.rmtree": ((0, None),), "shutil.copyfile": ((0, None), (1, None)), "shutil.move": ((0, None), (1, None)),
}
_PROCESS_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty", "pty.spawn", "os.startfile"}
_SOCKET_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"}
_SQLITE_EVENTS = {"sqlite3.connect"}
_SQLITE_ATTACH, _SQLITE_DENY, _SQLITE_OK = 24, 1, 0
#: loading a C library, looking up a symbol, reading or writing raw memory: the ways around the other hooks
#: (the verifier's own ctypes users, z3, load their library before the guard is installed)
_CTYPES_EVENTS = {"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata", "ctypes.string_at",
                  "ctypes.wstring_at"}
#: listing every object of the interpreter, or every object that refers to one: how a target finds the tamper
#: check's own data (neither CrossHair nor Hypothesis calls them while they check)
_GC_EVENTS = frozenset({"gc.get_objects", "gc.get_referrers"})
_WATCHED = ({"open", "os.kill", "os.killpg"} | set(_PATH_EVENTS) | _PROCESS_EVENTS | _SOCKET_EVENTS
            | _CTYPES_EVENTS | _SQLITE_EVENTS | _GC_EVENTS)
#: assigning or deleting a function's code, defaults or keyword defaults: blocked for evalgap's own functions
#: (the tamper check's and the workers'), whose code lives under :data:`_OWN_DIR`, and blocked and reported
#: as tampering for the functions the tamper check watches (:func:`install`'s ``functions``); assigning
#: ``__class__`` of a watched module or class too
_FUNCTION_EVENTS = frozenset({"object.__setattr__", "object.__delattr__"})
_FUNCTION_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
_OWN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
_FunctionType = type(lambda: None)


def _own_function(obj: Any, _type: Any = type, _fn: Any = _FunctionType, _dir: str = _OWN_DIR,
                  _str: Any = str, _startswith: Any = str.startswith) -> bool:
    """Whether ``obj`` is a function whose code is evalgap's verifier's (a file under :data:`_OWN_DIR`).
    Only an exact ``str`` file name is read, with ``str``'s own method: a code object made with a ``str``
    subclass as its file name must not run the target's code inside the hook."""
    if _type(obj) is not _fn:
        return False
    name = obj.__code__.co_filename
    return _type(name) is _str and bool(_startswith(name, _dir))

#: Human-readable descriptions of the operations blocked so far in this process (first 20).
BLOCKED: list[str] = []

_state: dict[str, Any] = {"root": None, "busy": False}


class SandboxBlocked(PermissionError):
    """Raised in the worker when the code under check attempts an operation the guard blocks."""


def installed_root() -> str | None:
    """The folder writes are confined to, or None when the guard is not installed in this process."""
    root = _state["root"]
    return root if isinstance(root, str) else None


def _fd_path(fd: int) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _inside(path: Any, root: str, dir_fd: int | None = None, fd_ok: bool = True) -> bool:
    """Whether ``path`` (relative names resolved against ``dir_fd``'s folder when one is given, else the
    working folder) is ``root`` or beneath it. A descriptor: True when ``fd_ok`` (its open was checked), else
    the file it is open on (``fchmod`` of a descriptor opened read-only on a file outside)."""
    if isinstance(path, int):
        if fd_ok:
            return True
        where = _fd_path(path)
        return where is not None and (where == "/dev/null" or _inside(where, root))
    try:
        text = os.fsdecode(path)
    except TypeError:
        return False
    if type(text) is not str:  # a str subclass: its methods are the target's; use an exact copy
        text = str.__str__(text)
    if text in ("/dev/null", "nul"):
        return True
    base = os.getcwd()
    if dir_fd is not None and dir_fd >= 0 and not os.path.isabs(text):
        found = _fd_path(dir_fd)
        if found is None:
            return False
        base = found
    full = os.path.realpath(os.path.join(base, text))
    return full == root or full.startswith(root + os.sep)


def _block(what: str) -> NoReturn:
    if len(BLOCKED) < 20:
        BLOCKED.append(what)
    raise SandboxBlocked(f"evalgap sandbox blocked {what}")


def _make_hook(root: str, functions: Mapping[int, Any] | None = None,
               on_tamper: Callable[[Any, Any, str], None] | None = None) -> Any:
    """The audit hook for ``root``. What it reads is bound here, once, before any target code runs: the
    watched events (a frozenset), the root (a string), its re-entry flag (a closure cell no module global
    reaches), :func:`_block` and :func:`_inside`. A target that rebinds ``guard._state``, ``guard._WATCHED``
    or ``guard._block`` changes nothing the hook does; replacing the code or defaults of one of evalgap's
    functions (``_hook.__defaults__ = ...``, ``Channel.tampered.__code__ = ...``) is itself blocked.
    ``functions`` (``id(function) -> owner``, the owner holding a reference to it) and ``on_tamper`` (called
    with the owner and a description) are bound here too: an assignment to one of those functions' code or
    defaults is reported, then blocked."""
    watched = frozenset(_WATCHED | _FUNCTION_EVENTS)
    fns = dict(functions or {})
    busy = [False]

    def hook(event: str, args: tuple[Any, ...], _watched: Any = watched, _busy: Any = busy, _root: str = root,
             _block: Any = _block, _inside: Any = _inside, _own: Any = _own_function,
             _path_events: Any = dict(_PATH_EVENTS), _process: Any = frozenset(_PROCESS_EVENTS),
             _socket: Any = frozenset(_SOCKET_EVENTS), _ctypes: Any = frozenset(_CTYPES_EVENTS),
             _gc: Any = _GC_EVENTS,
             _fn_attrs: Any = _FUNCTION_ATTRS, _write: int = _WRITE_FLAGS, _fns: Any = fns,
             _on_tamper: Any = on_tamper, _id: Any = id, _fn_events: Any = _FUNCTION_EVENTS) -> None:
        if event not in _watched:
            return
        if event in _fn_events:  # checked even inside the hook's own calls (nothing there assigns code)
            if len(args) > 1 and args[1] == "__class__" and _on_tamper is not None:
                owner = _fns.get(_id(args[0]))  # a watched module or class given another class
                if owner is not None:
                    _on_tamper(owner, args[0], args[1])
                    _block("assigning __class__ of a module or class the tamper check watches")
            if len(args) > 1 and args[1] in _fn_attrs:
                owner = _fns.get(_id(args[0]))
                if owner is not None and _on_tamper is not None:
                    _on_tamper(owner, args[0], args[1])
                    _block(f"replacing {args[1]} of a function the tamper check watches")
                if _own(args[0]):
                    _block(f"replacing {args[1]} of one of evalgap's functions")
            return
        if _busy[0]:
            return
        _busy[0] = True  # realpath/getcwd must not re-enter the hook's checks
        try:
            if event == "open":
                path, _mode, flags = args
                if isinstance(flags, int) and flags & _write and not _inside(path, _root):
                    _block(f"a write to {os.fsdecode(path)!s} outside the worker folder")
            elif event in _path_events:
                for at, fd_at in _path_events[event]:
                    p = args[at] if at < len(args) else None
                    d = args[fd_at] if fd_at is not None and fd_at < len(args) else None
                    if p is not None and not _inside(p, _root, d if isinstance(d, int) else None, fd_ok=False):
                        _block(f"{event} on {p!s} outside the worker folder")
            elif event == "sqlite3.connect":
                db = os.fsdecode(args[0]) if isinstance(args[0], (str, bytes, os.PathLike)) else ""
                if db not in ("", ":memory:") and not _inside(db.removeprefix("file:").split("?")[0], _root):
                    _block(f"sqlite3.connect({db!r}) outside the worker folder")
            elif event in _process:
                _block(f"starting a process ({event})")
            elif event in ("os.kill", "os.killpg"):
                if not (event == "os.kill" and args and args[0] == os.getpid()):
                    _block(f"a signal to another process ({event})")
            elif event in _socket:
                _block(f"network access ({event})")
            elif event in _ctypes:
                _block(f"a foreign-function or raw-memory call ({event})")
            elif event in _gc:
                _block(f"listing the interpreter's objects ({event})")
        finally:
            _busy[0] = False

    return hook


def _sqlite_authorizer(action: int, *_: Any) -> int:
    if action == _SQLITE_ATTACH:
        if len(BLOCKED) < 20:
            BLOCKED.append("sqlite ATTACH DATABASE (a file by name from inside SQL)")
        return _SQLITE_DENY
    return _SQLITE_OK


def _checked(name: str, real: Any, write: Any) -> Any:
    """``os.NAME`` with its ``dir_fd`` taken into account (Python's audit events for ``open``, ``mkfifo`` and
    ``mknod`` do not carry it, or do not exist)."""

    def call(path: Any, *args: Any, **kwargs: Any) -> Any:
        root = _state["root"]
        if write(args, kwargs) and not _inside(path, root, kwargs.get("dir_fd")):
            _block(f"os.{name} on {path!s} outside the worker folder")
        return real(path, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = real.__doc__
    return call


def _open_writes(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    flags = args[0] if args else kwargs.get("flags", 0)
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _wrap_sqlite() -> None:
    """``sqlite3.connect`` returns connections that refuse ``ATTACH DATABASE`` (a file opened by name from
    inside SQL, which no audit event shows); ~3 ms of import, paid once per worker."""
    import _sqlite3
    import sqlite3
    import sqlite3.dbapi2

    real = _sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> Any:
        conn = real(*args, **kwargs)
        conn.set_authorizer(_sqlite_authorizer)
        return conn

    connect.__doc__ = real.__doc__
    for module in (_sqlite3, sqlite3, sqlite3.dbapi2):
        module.connect = connect  # type: ignore[attr-defined]


def _wrap_os() -> None:
    import posix

    wrappers = {"open": _checked("open", os.open, _open_writes),
                "mkfifo": _checked("mkfifo", os.mkfifo, lambda a, k: True),
                "mknod": _checked("mknod", os.mknod, lambda a, k: True)}
    for module in (os, posix):
        for name, fn in wrappers.items():
            setattr(module, name, fn)


def _no_exit(code: int = 0) -> NoReturn:
    _block(f"os._exit({code}) (ending the worker without a report)")


def install(root: str, functions: Mapping[int, Any] | None = None,
            on_tamper: Callable[[Any, Any, str], None] | None = None) -> bool:
    """Install the guard in this process, confining writes to ``root`` (made absolute and resolved).

    Args:
        root: the worker's private folder.
        functions: ``id(function) -> owner`` of the functions the tamper check watches (the owner, a
            :class:`~evalgap.verifier.sandbox.snapshot.Watch`, keeps each function alive, so no id is reused):
            assigning or deleting their ``__code__``, ``__defaults__`` or ``__kwdefaults__`` is reported
            through ``on_tamper(owner, function, attribute)`` and blocked.
        on_tamper: see ``functions``.

    Returns:
        True when the hook was installed by this call (with ``functions``); False when it was already
        installed (``functions`` are then not watched by it).

    Raises:
        RuntimeError: the guard is already installed with another root (hooks cannot be removed).
    """
    real = os.path.realpath(root)
    if _state["root"] is not None:
        if _state["root"] != real:
            raise RuntimeError(f"the sandbox guard is already installed for {_state['root']}")
        return False
    _state["root"] = real
    import posix

    os._exit = posix._exit = _no_exit  # type: ignore[assignment]
    _wrap_os()
    try:
        _wrap_sqlite()
    except ImportError:  # pragma: no cover - a Python without sqlite3 has no ATTACH either
        pass
    sys.addaudithook(_make_hook(real, functions, on_tamper))
    return True
