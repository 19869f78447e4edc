"""A throw-away PostgreSQL server in a temporary folder, for the database tests (docs/database.md).

:func:`start` runs ``initdb`` and ``pg_ctl start`` from the PostgreSQL binaries on ``PATH`` (or
``/usr/local/bin``, ``/usr/lib/postgresql/*/bin``), listening on a unix socket in the folder only (no TCP
port). PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user through
``runuser``. :func:`skip_reason` says why a server cannot be started (no binaries, root without a
``postgres`` user) so a test can skip with that reason.

Run as a script (``python tests/pg_server.py``) it starts a server, prints its URL and waits for Ctrl-C.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PgServer", "find_bin", "skip_reason", "start"]


def find_bin(name: str) -> str | None:
    """The path of PostgreSQL binary ``name`` (``initdb``, ``pg_ctl``, ``postgres``), or None when absent."""
    found = shutil.which(name)
    if found:
        return found
    for cand in ["/usr/local/bin/" + name, *sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))]:
        if os.access(cand, os.X_OK):
            return cand
    return None


def skip_reason() -> str | None:
    """Why no throw-away server can be started here, or None when one can."""
    missing = [b for b in ("initdb", "pg_ctl", "postgres") if find_bin(b) is None]
    if missing:
        return f"PostgreSQL binaries not found ({', '.join(missing)}): install Debian's postgresql package"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run the server as (postgres refuses root)"
    return None


@dataclass
class PgServer:
    """A running server: ``socket_dir`` holds its unix socket (``.s.PGSQL.<port>``), ``user`` is the superuser."""

    root: Path
    socket_dir: Path
    port: int
    user: str

    @property
    def url(self) -> str:
        """``postgresql://USER@/postgres?host=SOCKET_DIR&port=PORT`` (libpq's unix-socket form)."""
        return f"postgresql://{self.user}@/postgres?host={self.socket_dir}&port={self.port}"

    def connect(self, database: str = "postgres") -> object:
        """A pg8000 DB-API connection to ``database`` over the unix socket (autocommit off)."""
        import pg8000.dbapi  # type: ignore[import-untyped]

        return pg8000.dbapi.connect(user=self.user, database=database,
                                    unix_sock=str(self.socket_dir / f".s.PGSQL.{self.port}"))

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its folder."""
        _run(self, [str(find_bin("pg_ctl")), "-D", str(self.root / "data"), "-m", "fast", "-w", "stop"])
        shutil.rmtree(self.root, ignore_errors=True)


def _run(server: PgServer, argv: list[str]) -> None:
    if os.geteuid() == 0:
        argv = ["runuser", "-u", server.user, "--", *argv]
    subprocess.run(argv, check=True, capture_output=True, timeout=60)


def start(port: int = 54329) -> PgServer:
    """Start a throw-away server; the caller stops it with :meth:`PgServer.stop`.

    Raises:
        RuntimeError: :func:`skip_reason` names a reason, or ``initdb``/``pg_ctl`` failed (their output).
    """
    reason = skip_reason()
    if reason:
        raise RuntimeError(reason)
    user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
    root = Path(tempfile.mkdtemp(prefix="evalgap-pg-"))
    if os.geteuid() == 0:
        os.chmod(root, 0o755)
        shutil.chown(root, user)
    server = PgServer(root, root, port, user)
    try:
        _run(server, [str(find_bin("initdb")), "-D", str(root / "data"), "-U", user, "-A", "trust",
                      "--no-sync", "-E", "UTF8", "--locale=C"])
        opts = f"-c listen_addresses='' -c unix_socket_directories='{root}' -p {port} -c fsync=off"
        _run(server, [str(find_bin("pg_ctl")), "-D", str(root / "data"), "-o", opts, "-l",
                      str(root / "log"), "-w", "start"])
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"{exc.cmd[0]} failed: {exc.stderr.decode(errors='replace')[-2000:]}") from None
    return server


if __name__ == "__main__":
    s = start()
    print(s.url, flush=True)
    try:
        import time

        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        s.stop()
