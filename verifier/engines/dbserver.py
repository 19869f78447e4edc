"""PostgreSQL for the ``database`` engine, trusted side: the server URL and the throw-away role and database of
one worker run (docs/database.md, section PostgreSQL).

Runs in evalgap's own process, never in a worker. :func:`parse_url` reads ``postgresql://USER[:PASSWORD]@HOST
[:PORT]/DATABASE`` (``?host=/socket/dir`` for a unix socket, as libpq spells it); :class:`Scratch`, over an
admin connection to that URL, makes a role (``LOGIN``, not superuser, no ``CREATEDB``/``CREATEROLE``, a random
password, at most one connection) and a database it owns from ``template0`` (so no extension the admin put
in ``template1``, e.g. ``dblink``, is there), with ``CONNECT`` revoked from ``PUBLIC``; the worker logs in as
that role before its sandbox is entered. Afterwards it drops the database (``WITH (FORCE)``: a session
still running a statement is terminated) and the role.
"""

from __future__ import annotations

import getpass
import secrets
import urllib.parse
from dataclasses import dataclass
from typing import Any

__all__ = ["ServerURL", "parse_url", "Scratch", "ScratchError"]


class ScratchError(Exception):
    """The server could not be reached, or refused to make or drop the throw-away role and database."""


@dataclass(frozen=True)
class ServerURL:
    """Where the server is and who to log in as: ``unix_sock`` (the socket file) or ``host`` and ``port``."""

    user: str
    password: str | None
    database: str
    host: str | None
    port: int
    unix_sock: str | None

    @property
    def shown(self) -> str:
        """The URL without its password (for reports and the cache key)."""
        where = f"?host={self.unix_sock.rsplit('/', 1)[0]}" if self.unix_sock else ""
        host = "" if self.unix_sock else self.host
        return f"postgresql://{self.user}@{host}:{self.port}/{self.database}{where}"


def parse_url(url: str) -> ServerURL:
    """Read a ``postgresql://`` (or ``postgres://``) URL; the user defaults to the login name, the database to
    ``postgres``, the port to 5432; ``host`` starting with ``/`` (in the authority or as ``?host=``) is the
    folder of the server's unix socket.

    Raises:
        ValueError: not such a URL (the message says what is wrong).
    """
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError(f"not a PostgreSQL URL (postgresql://USER@HOST:PORT/DATABASE): {url!r}")
    query = urllib.parse.parse_qs(parts.query)
    unknown = sorted(set(query) - {"host", "port", "user", "password", "dbname"})
    if unknown:
        raise ValueError(f"unsupported parameter(s) in the PostgreSQL URL: {', '.join(unknown)}")
    try:
        port = int(query.get("port", [None])[0] or parts.port or 5432)
    except ValueError as exc:
        raise ValueError(f"bad port in the PostgreSQL URL: {exc}") from None
    host = query.get("host", [None])[0] or urllib.parse.unquote(parts.hostname or "") or "localhost"
    user = query.get("user", [None])[0] or urllib.parse.unquote(parts.username or "") or getpass.getuser()
    password = query.get("password", [None])[0] or (urllib.parse.unquote(parts.password) if parts.password else None)
    database = query.get("dbname", [None])[0] or urllib.parse.unquote(parts.path.lstrip("/")) or "postgres"
    sock = f"{host.rstrip('/')}/.s.PGSQL.{port}" if host.startswith("/") else None
    return ServerURL(user, password, database, None if sock else host, port, sock)


def _connect(url: ServerURL, user: str | None = None, password: str | None = None,
             database: str | None = None) -> Any:
    import pg8000.dbapi  # type: ignore[import-untyped]

    where: dict[str, Any] = {"unix_sock": url.unix_sock} if url.unix_sock else {"host": url.host, "port": url.port}
    conn = pg8000.dbapi.connect(user=user or url.user, password=password if user else url.password,
                                database=database or url.database, timeout=60, application_name="evalgap", **where)
    conn.autocommit = True
    return conn


def _fields(exc: BaseException) -> str:
    d = exc.args[0] if exc.args and isinstance(exc.args[0], dict) else None
    return f"{d.get('M')} (SQLSTATE {d.get('C')})" if d else f"{type(exc).__name__}: {exc}"


class Scratch:
    """A throw-away role and database for one worker run (a context manager); :meth:`params` is what the
    worker's request carries to log in. ``statement_timeout_s`` bounds each statement of the role's session."""

    def __init__(self, url: ServerURL, statement_timeout_s: float = 60.0) -> None:
        self.url, self.name = url, "evalgap_" + secrets.token_hex(6)
        self._password = secrets.token_urlsafe(18)
        self._timeout_ms = int(statement_timeout_s * 1000)
        self._admin: Any = None

    def params(self) -> dict[str, Any]:
        """The worker's ``postgres`` request entry (the role's name, password and database, and the server)."""
        return {"user": self.name, "password": self._password, "database": self.name, "host": self.url.host,
                "port": self.url.port, "unix_sock": self.url.unix_sock}

    def __enter__(self) -> Scratch:
        try:
            self._admin = _connect(self.url)
        except ImportError:
            raise ScratchError("the PostgreSQL backend needs the pg8000 driver (pip install pg8000)") from None
        except Exception as exc:  # noqa: BLE001 - whatever the driver raises for a refused login
            raise ScratchError(f"cannot connect to {self.url.shown}: {_fields(exc)}") from None
        n = self.name
        steps = [f"CREATE ROLE {n} LOGIN PASSWORD '{self._password}' NOSUPERUSER NOCREATEDB NOCREATEROLE "
                 f"NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT 1",
                 f"ALTER ROLE {n} SET statement_timeout = {self._timeout_ms}",
                 f"CREATE DATABASE {n} OWNER {n} TEMPLATE template0 ENCODING 'UTF8'",
                 f"REVOKE ALL ON DATABASE {n} FROM PUBLIC"]
        try:
            cur = self._admin.cursor()
            for sql in steps:
                cur.execute(sql)
        except Exception as exc:  # noqa: BLE001 - e.g. the URL's role may not create roles or databases
            self._drop()
            raise ScratchError(f"{self.url.shown} refused to make a throw-away role and database (the URL's "
                               f"role needs CREATEROLE and CREATEDB): {_fields(exc)}") from None
        return self

    def __exit__(self, *_: object) -> None:
        self._drop()

    def _drop(self) -> None:
        if self._admin is None:
            return
        cur = self._admin.cursor()
        for sql in (f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)", f"DROP ROLE IF EXISTS {self.name}"):
            try:
                cur.execute(sql)
            except Exception:  # noqa: BLE001,S112 - best effort: the database first, then the role
                continue
        self._admin.close()
        self._admin = None
