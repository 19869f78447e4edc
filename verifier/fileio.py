"""The one way evalgap writes a file a user named (``-o``, ``export -o``, ``author -o``, ``fmt``, reproducers).

Rules (docs/report.md, "Output files"):

* a regular file (or a new path) is written **atomically**: a temporary file in the same folder, flushed,
  then renamed over the path, so a reader never sees half a report and a failed write leaves the old file;
* a **symlink** is written through: the file it points to is replaced (atomically), the link stays a link;
* anything else that exists (``/dev/null``, a FIFO, a terminal, a socket) is **opened and written**, never
  replaced;
* the folder must exist (nothing is created behind the user's back); a folder as the path is an error;
  only ``-o DIR/`` (a trailing slash, :func:`make_folder`) creates that one folder, never its parents;
* the file's mode is that of the file it replaces, else ``0o666`` less the process umask (as ``open``
  would), so a CI artifact step running as another user can read it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from evalgap.verifier.errors import UsageError

__all__ = ["write_text", "write_bytes", "make_folder", "preflight"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` under the rules of this module.

    Raises:
        UsageError: the path is a folder, its folder does not exist, or the write failed (permission, full
            disk, ...); the message names the path and the reason. An existing file is then unchanged.
    """
    given = Path(path)
    try:
        st = os.stat(given)  # follows symlinks: a link is written through
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise UsageError(f"cannot write {given}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise UsageError(f"cannot write {given}: it is a folder (give a file path)")
    if st is not None and not stat.S_ISREG(st.st_mode):  # a device, a FIFO, a socket: write into it
        try:
            with open(given, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise UsageError(f"cannot write {given}: {exc.strerror or exc}") from None
        return
    real = Path(os.path.realpath(given))
    folder = real.parent
    if not folder.is_dir():
        shown = folder if os.path.islink(given) else given.parent  # a dangling link: the folder it points into
        raise UsageError(f"cannot write {given}: the folder {shown} does not exist (create it first)")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", dir=folder)
    except OSError as exc:
        raise UsageError(f"cannot write {given}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"cannot write {given}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"))


def make_folder(folder: str | os.PathLike[str]) -> None:
    """Create ``folder`` (one level: its parent must exist) unless it is already a folder (``-o DIR/``).

    Raises:
        UsageError: the parent folder does not exist, the path exists and is not a folder, or mkdir failed.
    """
    given = Path(folder)
    if given.is_dir():
        return
    if os.path.lexists(given):
        raise UsageError(f"cannot write into {given}/: it exists and is not a folder")
    if not given.parent.is_dir():
        raise UsageError(f"cannot create the folder {given}: its parent {given.parent} does not exist "
                         "(only the last folder of `-o DIR/` is created)")
    try:
        os.mkdir(given)
    except FileExistsError:
        if not given.is_dir():
            raise UsageError(f"cannot write into {given}/: it exists and is not a folder") from None
    except OSError as exc:
        raise UsageError(f"cannot create the folder {given}: {exc.strerror or exc}") from None


def preflight(path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None) -> None:
    """Fail now, before a long run, for an output path :func:`write_bytes` would refuse later.

    Args:
        path: the output file.
        folder: the ``-o DIR/`` folder that will be created first (then only its parent must exist).

    Raises:
        UsageError: ``path`` is a folder, or the folder it goes into does not exist (and will not be created).
    """
    given = Path(path)
    if folder is not None:
        dir_ = Path(folder)
        if os.path.lexists(dir_) and not dir_.is_dir():
            raise UsageError(f"cannot write into {dir_}/: it exists and is not a folder")
        if not dir_.is_dir() and not dir_.parent.is_dir():
            raise UsageError(f"cannot create the folder {dir_}: its parent {dir_.parent} does not exist "
                             "(only the last folder of `-o DIR/` is created)")
        return
    if given.is_dir():
        raise UsageError(f"cannot write {given}: it is a folder (give a file path, or DIR/ for a folder of "
                         "reports)")
    real_parent = Path(os.path.realpath(given)).parent
    if not os.path.exists(given) and not real_parent.is_dir():
        shown = real_parent if os.path.islink(given) else given.parent
        raise UsageError(f"cannot write {given}: the folder {shown} does not exist (create it first)")
