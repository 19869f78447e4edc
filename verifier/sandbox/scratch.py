"""evalgap's own temporary folders (harness, worker jobs, fork-server home, gate and research scratch).

``with scratch_dir("evalgap-harness-") as tmp`` is :class:`tempfile.TemporaryDirectory` that also records
the folder while it lives, so that :func:`remove_all` can delete it when the block's own clean-up will not
run: the CLI's SIGINT/SIGTERM exit (``os._exit`` at once, without waiting for the running checks; see
:mod:`evalgap.verifier.cli.main`) used to leave an ``evalgap-forkserver-*``, an ``evalgap-harness-*`` and an
``evalgap-worker-*`` folder in the temporary directory on every Ctrl-C.

Folders are removed with :func:`shutil.rmtree`, which on Linux walks by file descriptor and does not follow
a symlink a sandboxed target left in its job folder.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import tempfile
import threading
from collections.abc import Iterator

__all__ = ["scratch_dir", "lasting_dir", "remove_all"]

_LIVE: set[str] = set()
_LOCK = threading.Lock()


@contextlib.contextmanager
def scratch_dir(prefix: str) -> Iterator[str]:
    """A fresh folder (``tempfile.mkdtemp(prefix=prefix)``, mode 0o700) for the ``with`` block, removed at its
    end (errors ignored, as :class:`tempfile.TemporaryDirectory` with ``ignore_cleanup_errors``) or by
    :func:`remove_all`. Yields the folder's path (str). Raises :class:`OSError` when it cannot be made."""
    with _LOCK:  # made under the lock: remove_all(final=True) then stops new ones
        path = tempfile.mkdtemp(prefix=prefix)
        _LIVE.add(path)
    try:
        yield path
    finally:
        with _LOCK:
            _LIVE.discard(path)
        shutil.rmtree(path, ignore_errors=True)


def lasting_dir(prefix: str) -> str:
    """A fresh folder that lives until the process exits (removed at exit, or by :func:`remove_all`);
    returns its path. Raises :class:`OSError` when it cannot be made."""
    with _LOCK:
        path = tempfile.mkdtemp(prefix=prefix)
        _LIVE.add(path)
    atexit.register(shutil.rmtree, path, True)
    return path


def remove_all(final: bool = False) -> None:
    """Remove every folder made by this module that is still alive (for an exit that skips clean-up);
    never raises.

    Args:
        final: the process exits next (the CLI's signal exit): the module's lock stays held, so a thread
            still running a check blocks in its next :func:`scratch_dir` instead of making a folder that
            nobody would remove; each folder is removed twice, for a file such a thread wrote into it
            during the first pass."""
    _LOCK.acquire()
    try:
        paths = sorted(_LIVE)
        _LIVE.clear()
        for _ in range(2):
            for path in paths:
                shutil.rmtree(path, ignore_errors=True)
    finally:
        if not final:
            _LOCK.release()
