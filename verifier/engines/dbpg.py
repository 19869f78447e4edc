"""PostgreSQL for the ``database`` engine, worker side: the connection the migration gets and the backend that
runs each example in a throw-away schema (docs/database.md, section PostgreSQL).

The ``database`` worker opens one pg8000 connection in its trusted ``prepare`` step, before the OS sandbox
and the guard are installed and before the target is imported (:func:`open_connection`): the sandbox then
refuses every new socket, and the connection, logged in as a throw-away role that owns only a throw-away
database (:mod:`evalgap.verifier.engines.dbserver`, made by the trusted parent), is the only way to the
server. :class:`PgBackend` gives every example a schema of its own in that database (``search_path`` set to
it) and drops everything the role owns afterwards (``DROP OWNED BY CURRENT_USER``), so nothing an example or
its migration made survives into the next. :class:`PgConnection` is what ``migrate(conn)`` receives: the
``sqlite3.Connection`` surface a migration uses (``execute`` with ``?`` or ``:name`` parameters,
``executemany``, ``executescript``, ``cursor``, ``commit``, ``rollback``, ``in_transaction``) in autocommit
mode, plus ``dbapi``, the pg8000 DB-API connection itself (for SQLAlchemy: ``create_engine(
"postgresql+pg8000://", creator=lambda: conn.dbapi)``).
"""

from __future__ import annotations

import collections
from typing import Any, Iterator, Mapping, Sequence

from evalgap.verifier.engines.dbtables import Column, Rejected, Table, Tables, insert_sql

__all__ = ["open_connection", "PgConnection", "PgCursor", "PgBackend", "kind_of"]

#: Generated-value kind of a PostgreSQL type (``format_type``'s spelling, without its modifier).
_KINDS = {"smallint": "INTEGER", "integer": "INTEGER", "bigint": "INTEGER", "text": "TEXT",
          "character varying": "TEXT", "character": "TEXT", "real": "REAL", "double precision": "REAL",
          "numeric": "NUMERIC", "boolean": "BOOLEAN", "bytea": "BLOB"}


def kind_of(pg_type: str) -> str:
    """The value kind the generator uses for a column of PostgreSQL type ``pg_type`` (``integer``,
    ``character varying(20)``...): ``INTEGER``, ``TEXT``, ``REAL``, ``NUMERIC``, ``BOOLEAN``, ``BLOB``, or
    ``TEXT`` for any other type (its text literals may be refused by the server, and are counted as such)."""
    return _KINDS.get(pg_type.split("(")[0].strip().lower(), "TEXT")


def open_connection(params: Mapping[str, Any]) -> Any:
    """A pg8000 DB-API connection in autocommit mode from the worker's request (``unix_sock`` or ``host`` and
    ``port``, ``user``, ``password``, ``database``). Trusted: call it before the sandbox is entered.

    Raises:
        ImportError: pg8000 is not installed; pg8000.dbapi.Error or OSError: the server refused or is not there.
    """
    import pg8000.dbapi  # type: ignore[import-untyped]

    where: dict[str, Any] = ({"unix_sock": params["unix_sock"]} if params.get("unix_sock")
                             else {"host": params["host"], "port": int(params["port"])})
    conn = pg8000.dbapi.connect(user=params["user"], password=params.get("password"), database=params["database"],
                                timeout=60, application_name="evalgap-database-worker", **where)
    conn.autocommit = True
    return conn


def _readable(exc: BaseException) -> BaseException:
    """pg8000 raises with the server's fields as a dict; the same exception type with ``MESSAGE (SQLSTATE
    C)`` reads better in a verdict."""
    fields = exc.args[0] if exc.args and isinstance(exc.args[0], dict) else None
    if fields is None or "M" not in fields:
        return exc
    try:
        return type(exc)(f"{fields['M']} (SQLSTATE {fields.get('C', '?')})")
    except Exception:  # noqa: BLE001 - an exception type with another constructor
        return exc


class PgCursor:
    """A pg8000 cursor that takes sqlite3's parameter styles (``?`` with a sequence, ``:name`` with a
    mapping); other attributes (``fetchone``, ``fetchall``, ``rowcount``, ``description``...) are pg8000's."""

    def __init__(self, cursor: Any) -> None:
        self._cur = cursor

    def execute(self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] = ()) -> PgCursor:
        """Run one statement (several, separated by ``;``, when there are no parameters)."""
        import pg8000.dbapi

        old = pg8000.dbapi.paramstyle
        pg8000.dbapi.paramstyle = "named" if isinstance(parameters, Mapping) else "qmark"
        try:
            if parameters:
                self._cur.execute(sql, parameters)
            else:
                self._cur.execute(sql)
        except pg8000.dbapi.Error as exc:
            raise _readable(exc) from None
        finally:
            pg8000.dbapi.paramstyle = old
        return self

    def executemany(self, sql: str, seq: Any) -> PgCursor:
        """Run ``sql`` once per parameter set of ``seq``."""
        for parameters in seq:
            self.execute(sql, parameters)
        return self

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cur.fetchall() or [])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)


class PgConnection:
    """What a migration's ``migrate(conn)`` receives on PostgreSQL: sqlite3's connection surface over a pg8000
    connection in autocommit mode (as the SQLite backend's ``isolation_level=None``): each statement commits
    unless the migration opened a transaction (``BEGIN`` ... ``COMMIT``); ``executescript`` sends the script
    as one simple query, which PostgreSQL runs as one transaction unless the script has its own ``BEGIN``.
    ``close`` does nothing (the engine owns the connection); ``dbapi`` is the pg8000 connection itself."""

    def __init__(self, raw: Any) -> None:
        self.dbapi = raw

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (the server's status after the last statement)."""
        return getattr(self.dbapi, "_transaction_status", b"I") in (b"T", b"E")

    def cursor(self) -> PgCursor:
        """A new cursor."""
        return PgCursor(self.dbapi.cursor())

    def execute(self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] = ()) -> PgCursor:
        """Run one statement on a new cursor and return it."""
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, seq: Any) -> PgCursor:
        """Run ``sql`` once per parameter set of ``seq``."""
        return self.cursor().executemany(sql, seq)

    def executescript(self, script: str) -> PgCursor:
        """Run a script of statements separated by ``;`` (one simple query)."""
        return self.cursor().execute(script)

    def commit(self) -> None:
        """Commit an open transaction (none is open in autocommit mode unless the migration began one)."""
        if self.in_transaction:
            self.execute("COMMIT")

    def rollback(self) -> None:
        """Roll back an open transaction."""
        if self.in_transaction:
            self.execute("ROLLBACK")

    def close(self) -> None:
        """Nothing: the engine owns the connection and drops the example's schema itself."""


class PgBackend:
    """Examples on PostgreSQL over one connection (:class:`evalgap.verifier.engines.dbtables.Backend`): a schema
    ``eg_example_N`` per example, first on the ``search_path``; afterwards the open transaction is rolled
    back, the session's settings reset and everything the role owns dropped."""

    dialect = "postgresql"

    def __init__(self, raw: Any) -> None:
        self._raw, self._conn, self._n, self._schema = raw, PgConnection(raw), 0, ""
        self.version = str(self._rows("SHOW server_version")[0][0])
        self.collation = str(self._rows("SELECT datcollate FROM pg_database WHERE datname = current_database()")[0][0])

    def _rows(self, sql: str) -> list[Any]:
        return list(self._raw.execute_simple(sql).rows or [])

    def _new_schema(self, ddl: str) -> None:
        self.discard()
        self._n += 1
        self._schema = f"eg_example_{self._n}"
        self._raw.execute_simple(f"CREATE SCHEMA {self._schema}; SET search_path TO {self._schema}")
        self._raw.execute_simple(ddl)

    def read_schema(self, ddl: str) -> list[Table]:
        """See :class:`~evalgap.verifier.engines.dbtables.Backend` (the server's error when ``ddl`` fails)."""
        try:
            self._new_schema(ddl)
            return [t for t, _ in self._tables()]
        finally:
            self.discard()

    def fresh(self, ddl: str, tables: list[Table], content: dict[str, list[tuple[Any, ...]]]) -> PgConnection:
        """See :class:`~evalgap.verifier.engines.dbtables.Backend`."""
        import pg8000.dbapi

        self._new_schema(ddl)
        inserts = insert_sql(tables, content, "postgresql")
        if inserts:
            try:  # one simple query: one implicit transaction, all rows or none
                self._raw.execute_simple("\n".join(inserts))
            except pg8000.dbapi.Error as exc:
                raise Rejected(str(_readable(exc))) from None
        return self._conn

    def _tables(self) -> list[tuple[Table, list[str]]]:
        """The example schema's tables in creation order, each with its primary-key columns."""
        rows = self._rows(
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
            "coalesce(a.attnum = ANY(i.indkey), false) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
            "LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary "
            f"WHERE n.nspname = '{self._schema}' AND c.relkind IN ('r', 'p') ORDER BY c.oid, a.attnum")
        cols: dict[str, list[Column]] = {}
        for table, name, typ, notnull, pk in rows:
            cols.setdefault(str(table), []).append(Column(str(name), str(typ), bool(notnull), bool(pk),
                                                          kind_of(str(typ))))
        return [(Table(t, tuple(cs)), [c.name for c in cs if c.pk]) for t, cs in cols.items()]

    def snapshot(self, when: str) -> Tables:
        """See :class:`~evalgap.verifier.engines.dbtables.Backend`: rows in primary-key order (physical order,
        ``ctid``, for a table without one)."""
        data: dict[str, list[Any]] = {}
        for t, pk in self._tables():
            names = [c.name for c in t.columns]
            row_t = collections.namedtuple(t.name if t.name.isidentifier() else "Row", names, rename=True)  # type: ignore[misc]
            order = ", ".join([f'"{c}"' for c in pk] + ["ctid"])
            quoted = t.name.replace('"', '""')
            data[t.name] = [row_t(*r) for r in self._rows(f'SELECT * FROM {self._schema}."{quoted}" ORDER BY {order}')]
        return Tables(when, data)

    def settle(self) -> None:
        """See :class:`~evalgap.verifier.engines.dbtables.Backend`: commit an open transaction (a failed one
        rolls back, as COMMIT does there)."""
        if self._conn.in_transaction:
            self._raw.execute_simple("COMMIT")

    def discard(self) -> None:
        """See :class:`~evalgap.verifier.engines.dbtables.Backend`."""
        if self._conn.in_transaction:
            self._raw.execute_simple("ROLLBACK")
        self._raw.execute_simple("RESET ALL; DROP OWNED BY CURRENT_USER")
        self._schema = ""
