"""The ``evalgap serve`` protocol's request and its socket folder (what the client and the server share)."""

from __future__ import annotations

import os
import socket
import stat
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

from evalgap.verifier.errors import VerifierError
from evalgap.verifier.options import Settings

__all__ = ["CheckRequest", "socket_path", "environment", "secure_folder", "peer_uid", "ServerError", "MAX_LINE"]

#: The longest message line either side accepts (bytes).
MAX_LINE = 64 * 1024 * 1024


class ServerError(VerifierError):
    """No usable server: the socket is absent or stale, its folder is not private, the server refused the
    request (another environment), or it broke off."""


@dataclass(frozen=True)
class CheckRequest:
    """One check for the server (the arguments of :func:`evalgap.check`).

    Attributes:
        spec: the ``.req`` file or case folder (absolute), or the display name when ``text`` is given.
        target: the target as given (a case's implementation name, a module, a ``.py`` path), or None.
        settings: the resolved settings (the client read pyproject.toml and the profile).
        cwd: the client's current folder (a relative ``target`` and ``--tests`` are resolved there).
        text: the spec's text when it does not come from a file (``evalgap check -``).
        tests: the project's tests (absolute), or None.
        env: :func:`environment` of the client; the server refuses a request whose ``env`` differs from its own.
    """

    spec: str
    target: str | None
    settings: Settings
    cwd: str
    text: str | None = None
    tests: str | None = None
    env: dict[str, str] = field(default_factory=dict)


def environment() -> dict[str, str]:
    """What a check's outcome depends on besides the request: ``PYTHONPATH``, every ``EVALGAP_*`` variable,
    ``XDG_CACHE_HOME``/``XDG_CONFIG_HOME`` (the cache and its key), the Python executable, evalgap's version."""
    from evalgap import __version__

    out = {k: v for k, v in os.environ.items()
           if k.startswith("EVALGAP_") and k not in ("EVALGAP_SERVER_SOCKET",)}
    for k in ("PYTHONPATH", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        if os.environ.get(k):
            out[k] = os.environ[k]
    out["python"] = f"{sys.prefix} {os.path.realpath(sys.executable)}"
    out["evalgap"] = str(__version__)
    return out


def socket_path() -> Path:
    """``$EVALGAP_SERVER_SOCKET``, else ``$XDG_RUNTIME_DIR/evalgap/serve.sock``, else
    ``$XDG_CACHE_HOME/evalgap/run/serve.sock`` (``~/.cache/evalgap/run/serve.sock``)."""
    env = os.environ.get("EVALGAP_SERVER_SOCKET")
    if env:
        return Path(env)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / "evalgap" / "serve.sock"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evalgap" / "run" / "serve.sock"


def secure_folder(folder: Path, create: bool) -> None:
    """Check (and with ``create``, make) ``folder`` a 0700 folder of this user, not a symlink.

    Raises:
        ServerError: it is missing (without ``create``), not a folder, not this user's, or open to others.
    """
    if create:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise ServerError(f"cannot create the server folder {folder}: {exc.strerror}") from None
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        raise ServerError(f"no evalgap server: {folder} does not exist (start one with `evalgap serve`)") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ServerError(f"the server folder {folder} is not a folder (a symlink?)")
    if st.st_uid != os.getuid():
        raise ServerError(f"the server folder {folder} is not owned by this user")
    if st.st_mode & 0o077:
        raise ServerError(f"the server folder {folder} is open to other users (mode {stat.S_IMODE(st.st_mode):o}; "
                          "want 700)")


def peer_uid(sock: socket.socket) -> int | None:
    """The user ID of the process at the other end of the connected Unix socket ``sock`` (``SO_PEERCRED``,
    Linux), or None where the platform does not report it. The server answers only its own user, and the
    client talks only to a server of its own user: the folder checks of :func:`secure_folder` happen before
    the ``connect``, so a folder swapped in between (a race on an ancestor another user can write) is caught
    here, on the connection itself."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:  # pragma: no cover - not Linux
        return None
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i")))
    except OSError:
        return None
    return int(uid)
