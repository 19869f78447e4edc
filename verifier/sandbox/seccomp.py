"""A small seccomp filter (through ``ctypes``) for what Landlock does not cover: changes of file metadata.

Landlock has no right for ``chmod``, ``chown``, ``utime`` or extended attributes, and a job runs as its
user (as root, as the owner of most files), so a target could ``chmod 000`` a folder of the project or
``fchmod`` a descriptor it opened read-only. The filter makes those system calls, and ``unshare``,
``setns`` and ``mount`` (nothing a worker needs once isolated), fail with ``EPERM`` everywhere, the job's
own folder included. It also refuses ``socket(AF_UNIX, ...)``: Landlock does not stop a ``connect`` to a
named UNIX socket outside (a container runtime's, a desktop bus), and the network namespace does not
separate the file system's sockets (``socketpair``, which asyncio needs, stays allowed). Only x86-64 and AArch64 are known; elsewhere :func:`install` returns False (and the
report does not claim ``seccomp``).
"""

from __future__ import annotations

import ctypes
import errno
import platform

__all__ = ["install", "prepare", "DENIED", "forget"]

#: Denied system calls by name (those an architecture lacks are skipped).
DENIED = ("chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes",
          "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
          "fremovexattr", "setxattrat", "removexattrat", "unshare", "setns", "mount", "umount2", "pivot_root",
          "move_mount", "fsmount", "open_tree")

_X86_64 = {"chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94, "utime": 132, "mount": 165,
           "umount2": 166, "pivot_root": 155, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190,
           "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "utimes": 235, "fchownat": 260,
           "futimesat": 261, "fchmodat": 268, "unshare": 272, "utimensat": 280, "setns": 308, "open_tree": 428,
           "move_mount": 429, "fsmount": 432, "fchmodat2": 452, "setxattrat": 463, "removexattrat": 466}
_AARCH64 = {"setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15,
            "fremovexattr": 16, "umount2": 39, "mount": 40, "pivot_root": 41, "fchmod": 52, "fchmodat": 53,
            "fchownat": 54, "fchown": 55, "utimensat": 88, "unshare": 97, "setns": 268, "open_tree": 428,
            "move_mount": 429, "fsmount": 432, "fchmodat2": 452, "setxattrat": 463, "removexattrat": 466}
#: machine -> (AUDIT_ARCH_*, syscall table, first number of another ABI on the same arch (x32 on x86-64),
#: the number of ``socket``)
_ARCHES = {"x86_64": (0xC000003E, _X86_64, 0x40000000, 41), "aarch64": (0xC00000B7, _AARCH64, None, 198)}
_AF_UNIX = 1

_LD_ABS_W, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def _program(arch: int, table: dict[str, int], other_abi: int | None,
             socket_nr: int) -> list[tuple[int, int, int, int]]:
    """The BPF program: instructions ``(code, jt, jf, k)`` with jumps to the labels ``ALLOW``/``DENY``."""
    numbers = sorted({table[name] for name in DENIED if name in table})
    code: list[tuple[int, str | int, str | int, int]] = [
        (_LD_ABS_W, 0, 0, 4),  # seccomp_data.arch: a call through another architecture's entry is denied
        (_JEQ_K, 0, "DENY", arch),
        (_LD_ABS_W, 0, 0, 0),  # seccomp_data.nr
    ]
    if other_abi is not None:
        code.append((_JGE_K, "DENY", 0, other_abi))  # x32 calls
    code += [(_JEQ_K, "DENY", 0, nr) for nr in numbers]
    code += [(_JEQ_K, 0, "ALLOW", socket_nr),  # socket(AF_UNIX, ...): connect to a named socket outside
             (_LD_ABS_W, 0, 0, 16),  # seccomp_data.args[0] (low word)
             (_JEQ_K, "DENY", "ALLOW", _AF_UNIX)]
    labels = {"ALLOW": len(code), "DENY": len(code) + 1}
    out = [(c, labels[jt] - i - 1 if isinstance(jt, str) else jt, labels[jf] - i - 1 if isinstance(jf, str) else jf, k)
           for i, (c, jt, jf, k) in enumerate(code)]
    return out + [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM)]


_READY: list[tuple[ctypes.CDLL, _Prog, ctypes.Array[_Filter]]] = []


def prepare() -> bool:
    """Build the filter and load libc now (a fork server does this once, so that its jobs only install
    it); False on an unknown architecture."""
    if _READY:
        return True
    known = _ARCHES.get(platform.machine())
    if known is None:
        return False
    try:
        lib = ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - no libc
        return False
    code = _program(*known)
    filters = (_Filter * len(code))(*[_Filter(*c) for c in code])
    _READY.append((lib, _Prog(len(code), filters), filters))
    return True


def install() -> bool:
    """Install the filter on this thread for good (inherited by every process it starts); sets
    ``no_new_privs``. Returns False (nothing installed) on an unknown architecture or a refusal."""
    if not prepare():
        return False
    lib, prog, _ = _READY[0]
    if lib.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return bool(lib.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0)


def forget() -> None:
    """In a job's worker, once the filter is installed: drop the cached handle (see isolation.forget_exit)."""
    _READY.clear()
