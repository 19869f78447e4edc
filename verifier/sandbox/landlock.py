"""Landlock (Linux >= 5.13) through ``ctypes``: confine a process's writes to a few folders, forbid TCP and
signals to processes outside it.

Only the kernel's own syscalls (``landlock_create_ruleset`` 444, ``landlock_add_rule`` 445,
``landlock_restrict_self`` 446, the same number on every architecture) and ``prctl(PR_SET_NO_NEW_PRIVS)``
are used; nothing is installed. The rights handled depend on the ABI the running kernel reports
(:func:`abi`): a right the kernel does not know is simply not handled. Reads and execution are not handled,
so they stay allowed everywhere (the promise is about effects, not secrecy: docs/engine.md, threat model).
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["abi", "restrict", "LandlockError", "forget"]

_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# filesystem rights (ABI in which each appeared)
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_REMOVE_DIR, _REMOVE_FILE, _MAKE_CHAR, _MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
_MAKE_REG, _MAKE_SOCK, _MAKE_FIFO, _MAKE_BLOCK, _MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV  # the only rights a file rule takes
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6


class LandlockError(OSError):
    """Landlock is unavailable or refused a step (the caller falls back and says so)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # struct landlock_path_beneath_attr is __attribute__((packed))
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc: list[ctypes.CDLL] = []


def _c() -> ctypes.CDLL:
    if not _libc:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.syscall.restype = ctypes.c_long
        _libc.append(lib)
    return _libc[0]


_ABI: list[int] = []


def abi() -> int:
    """The Landlock ABI version of the running kernel (1, 2, ...), or 0 when Landlock is unavailable (not
    Linux, an old kernel, Landlock not in the kernel's LSM list, or the syscall filtered)."""
    if _ABI:
        return _ABI[0]
    try:
        version = _c().syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):  # pragma: no cover - no libc / no syscall()
        return 0
    _ABI.append(int(version) if version > 0 else 0)
    return _ABI[0]


def _write_rights(version: int) -> int:
    rights = (_WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE_CHAR | _MAKE_DIR | _MAKE_REG | _MAKE_SOCK
              | _MAKE_FIFO | _MAKE_BLOCK | _MAKE_SYM)
    if version >= 2:
        rights |= _REFER
    if version >= 3:
        rights |= _TRUNCATE
    if version >= 5:
        rights |= _IOCTL_DEV
    return rights


def _fail(step: str) -> LandlockError:
    err = ctypes.get_errno()
    return LandlockError(err, f"landlock {step}: {os.strerror(err)}")


def restrict(writable: list[str], version: int) -> list[str]:
    """Restrict this thread (and every process it starts from now on) for good: writes, file creation,
    removal, renames, truncation and device ioctls only beneath ``writable`` (folders or single files such as
    ``/dev/null``); with ABI >= 4 no TCP bind or connect at all; with ABI >= 6 no signals to, and no abstract
    UNIX sockets of, processes outside this Landlock domain. Also sets ``no_new_privs``. Call it in a
    single-threaded process (a thread's Landlock domain is not applied to its sibling threads).

    Args:
        writable: paths that stay writable (a path that does not exist is skipped).
        version: the ABI to use (:func:`abi`; must be >= 1).

    Returns:
        The mechanisms in force, e.g. ``["landlock-fs", "landlock-net", "landlock-scope"]``.

    Raises:
        LandlockError: a syscall failed (then nothing was restricted).
    """
    lib = _c()
    fs = _write_rights(version)
    attr = _RulesetAttr(fs, _NET_BIND_TCP | _NET_CONNECT_TCP if version >= 4 else 0,
                        _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL if version >= 6 else 0)
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    ruleset = lib.syscall(_SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise _fail("create_ruleset")
    try:
        for path in writable:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                rights = fs if os.path.isdir(path) else fs & _FILE_RIGHTS
                rule = _PathBeneath(rights, fd)
                if lib.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                               ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                    raise _fail(f"add_rule {path}")
            finally:
                os.close(fd)
        if lib.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _fail("no_new_privs")
        if lib.syscall(_SYS_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            raise _fail("restrict_self")
    finally:
        os.close(ruleset)
    return ["landlock-fs"] + (["landlock-net"] if version >= 4 else []) + (["landlock-scope"] if version >= 6 else [])


def forget() -> None:
    """In a job's worker, once it is isolated: drop the cached C library handle (see isolation.forget_exit)."""
    _libc.clear()
