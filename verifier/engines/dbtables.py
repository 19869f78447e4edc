"""Tables on a real database for the ``database`` engine: reading a schema, generating table contents,
running a migration on a throw-away database per example, and the SQL that reproduces an example.

Used inside the sandboxed ``database`` worker only (the migration is target code); it imports nothing of the
target. The database is a :class:`Backend`: SQLite here (:class:`SqliteBackend`, the default: every example
gets a fresh ``:memory:`` database, no file, so the OS sandbox's write rule is never in the way; the guard's
``ATTACH`` refusal stays in force for the target's SQL), PostgreSQL in :mod:`evalgap.verifier.engines.dbpg`
(a throw-away schema per example on a connection opened before the sandbox).
"""

from __future__ import annotations

import collections
import itertools
import sqlite3
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

__all__ = ["Column", "Table", "read_schema", "domain", "exhaustive", "Tables", "run_example", "Outcome",
           "insert_sql", "MissingTable", "Backend", "SqliteBackend", "Rejected", "literal"]


@dataclass(frozen=True)
class Column:
    """A column as the database reports it (SQLite: ``PRAGMA table_info``); ``kind`` is the kind of value
    generated for it (a key of the value domains: ``INTEGER``, ``TEXT``, ``REAL``, ``NUMERIC``, ``BLOB``,
    ``BOOLEAN``), empty for SQLite's type affinity of ``type``."""

    name: str
    type: str
    notnull: bool
    pk: bool
    kind: str = ""

    @property
    def value_kind(self) -> str:
        """``kind``, else SQLite's type affinity of the declared ``type``."""
        return self.kind or affinity(self.type)


@dataclass(frozen=True)
class Table:
    """A table of the schema: its name and columns; ``rowid_pk`` names an ``INTEGER PRIMARY KEY`` column
    (an alias of the rowid), which the generator numbers 1, 2, ... instead of enumerating."""

    name: str
    columns: tuple[Column, ...]

    @property
    def rowid_pk(self) -> str | None:
        """The ``INTEGER PRIMARY KEY`` column, if the table has exactly one primary-key column of that type."""
        pks = [c for c in self.columns if c.pk]
        return pks[0].name if len(pks) == 1 and pks[0].type.upper() == "INTEGER" else None

    @property
    def generated(self) -> tuple[Column, ...]:
        """The columns whose values are generated (all but the rowid alias)."""
        return tuple(c for c in self.columns if c.name != self.rowid_pk)


def _connect() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _tables(conn: sqlite3.Connection) -> list[Table]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                        "'sqlite_%' ORDER BY rowid")]
    out = []
    for n in names:
        cols = tuple(Column(str(r[1]), str(r[2]), bool(r[3]), bool(r[5]))
                     for r in conn.execute(f'PRAGMA table_info("{n}")'))
        out.append(Table(n, cols))
    return out


def read_schema(ddl: str, backend: Backend | None = None) -> list[Table]:
    """The tables ``ddl`` creates, in creation order (on ``backend``, default SQLite in memory).

    Raises:
        sqlite3.Error: ``ddl`` is not valid SQLite (another backend raises its driver's error).
    """
    if backend is not None:
        return backend.read_schema(ddl)
    conn = _connect()
    try:
        conn.executescript(ddl)
        return _tables(conn)
    finally:
        conn.close()


#: Small value domains by SQLite type affinity (https://sqlite.org/datatype3.html#type_affinity).
_DOMAINS: dict[str, tuple[Any, ...]] = {"INTEGER": (0, 1), "TEXT": ("", "Ada", "Ada Lovelace"),
                                        "REAL": (0.0, 1.5), "NUMERIC": (0, 1), "BLOB": (b"",),
                                        "BOOLEAN": (False, True)}


def affinity(declared: str) -> str:
    """SQLite's type affinity of a declared column type (the rules of section 3.1 of its datatype page)."""
    t = declared.upper()
    if "INT" in t:
        return "INTEGER"
    if any(k in t for k in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in t or not t:
        return "BLOB" if "BLOB" in t else "TEXT"
    if any(k in t for k in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def domain(col: Column) -> tuple[Any, ...]:
    """The values the exhaustive phase tries for ``col``: a few of its value kind, and NULL when nullable."""
    base = _DOMAINS[col.value_kind]
    return base if col.notnull or col.pk else (*base, None)


def exhaustive(tables: list[Table], max_rows: int, limit: int) -> Iterator[dict[str, list[tuple[Any, ...]]]]:
    """Every content of ``tables`` with at most ``max_rows`` rows in all, values from :func:`domain`, fewest
    rows first; at most ``limit`` contents."""
    rows_of = {t.name: list(itertools.product(*(domain(c) for c in t.generated))) for t in tables}
    count = 0
    for total in range(max_rows + 1):
        for split in _splits(total, len(tables)):
            choices = [itertools.product(rows_of[t.name], repeat=k) for t, k in zip(tables, split)]
            for combo in itertools.product(*choices):
                yield {t.name: list(rows) for t, rows in zip(tables, combo)}
                count += 1
                if count >= limit:
                    return


def _splits(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(total + 1):
        for rest in _splits(total - first, parts - 1):
            yield (first, *rest)


class MissingTable(AttributeError):
    """A rule read a table the database does not have (e.g. the migration dropped or renamed it)."""


class Tables:
    """The tables of a database as attributes: ``t.users`` is a list of rows (named tuples of the columns,
    in rowid order)."""

    def __init__(self, when: str, data: dict[str, list[Any]]) -> None:
        self._when, self._data = when, data

    def __getattr__(self, name: str) -> list[Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._data[name]
        except KeyError:
            raise MissingTable(f"there is no table {name!r} {self._when} the migration (tables: "
                               f"{', '.join(sorted(self._data)) or 'none'})") from None

    def show(self) -> str:
        """``users: [(1, 'Ada', 170, None)]; ...`` (the rows as tuples)."""
        return "; ".join(f"{n}: {[tuple(r) for r in rows]}" for n, rows in self._data.items())


def snapshot(conn: sqlite3.Connection, when: str) -> Tables:
    """Every table's rows now."""
    data: dict[str, list[Any]] = {}
    for t in _tables(conn):
        cols = [c.name for c in t.columns]
        row_t = collections.namedtuple(t.name if t.name.isidentifier() else "Row", cols, rename=True)  # type: ignore[misc]
        try:
            rows = conn.execute(f'SELECT * FROM "{t.name}" ORDER BY rowid').fetchall()
        except sqlite3.OperationalError:  # a WITHOUT ROWID table
            rows = conn.execute(f'SELECT * FROM "{t.name}"').fetchall()
        data[t.name] = [row_t(*r) for r in rows]
    return Tables(when, data)


def literal(v: Any, dialect: str = "sqlite") -> str:
    """``v`` as an SQL literal of ``dialect`` (``sqlite`` or ``postgresql``): NULL, numbers, quoted text
    (a NUL character as ``char(0)`` on SQLite), blobs as ``X'..'`` (SQLite) or ``'\\x..'::bytea``
    (PostgreSQL), booleans as TRUE/FALSE."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, bytes):
        return f"X'{v.hex()}'" if dialect == "sqlite" else f"'\\x{v.hex()}'::bytea"
    if isinstance(v, str):
        text = "'" + v.replace("'", "''") + "'"
        return text.replace("\x00", "' || char(0) || '") if dialect == "sqlite" else text
    return repr(v)


def _inserts(tables: list[Table], content: dict[str, list[tuple[Any, ...]]]) -> list[tuple[str, list[Any]]]:
    """``(INSERT ... VALUES (?, ...), values)`` per row of ``content`` (rowid aliases numbered 1, 2, ...)."""
    out = []
    for t in tables:
        cols = [c.name for c in t.generated]
        for i, row in enumerate(content.get(t.name, []), 1):
            names, values = list(cols), list(row)
            if t.rowid_pk is not None:
                names.insert(0, t.rowid_pk)
                values.insert(0, i)
            out.append((f'INSERT INTO "{t.name}" ({", ".join(names)}) VALUES ({", ".join("?" * len(values))})',
                        values))
    return out


def insert_sql(tables: list[Table], content: dict[str, list[tuple[Any, ...]]], dialect: str = "sqlite") -> list[str]:
    """The ``INSERT`` statements, as SQL text with literals of ``dialect``, that put ``content`` into fresh
    tables."""
    out = []
    for sql, values in _inserts(tables, content):
        head = sql.split(" VALUES ")[0]
        out.append(f"{head} VALUES ({', '.join(literal(v, dialect) for v in values)});")
    return out


class Rejected(Exception):
    """The schema's own constraints (NOT NULL, CHECK, UNIQUE, a foreign key, a type) refused a content."""


class Backend(Protocol):
    """A database engine the examples run on: each example gets a throw-away database (or schema).

    ``dialect`` is ``sqlite`` or ``postgresql`` (the literals of :func:`insert_sql`); ``note`` is the
    engine's description for a verdict's bounds."""

    dialect: str

    def read_schema(self, ddl: str) -> list[Table]:
        """The tables ``ddl`` creates, on a throw-away database dropped afterwards."""

    def fresh(self, ddl: str, tables: list[Table], content: dict[str, list[tuple[Any, ...]]]) -> Any:
        """A new throw-away database with ``ddl`` and ``content`` in it: the connection the migration gets.

        Raises:
            Rejected: the schema's constraints refused ``content``.
        """

    def snapshot(self, when: str) -> Tables:
        """Every table of the current example now."""

    def settle(self) -> None:
        """After the migration: commit what it left open."""

    def discard(self) -> None:
        """Drop the current example's database (also when the example failed half-way)."""


class SqliteBackend:
    """SQLite (stdlib ``sqlite3``): a fresh ``:memory:`` database per example, autocommit mode (the
    connection's ``isolation_level`` is None), foreign keys on."""

    dialect = "sqlite"

    def __init__(self) -> None:
        self._conn: sqlite3.Connection | None = None

    def read_schema(self, ddl: str) -> list[Table]:
        """See :class:`Backend`."""
        return read_schema(ddl)

    def fresh(self, ddl: str, tables: list[Table], content: dict[str, list[tuple[Any, ...]]]) -> sqlite3.Connection:
        """See :class:`Backend`."""
        self._conn = conn = _connect()
        conn.executescript(ddl)
        try:
            with conn:
                conn.execute("BEGIN")
                for sql, values in _inserts(tables, content):
                    conn.execute(sql, values)
        except sqlite3.Error as exc:
            raise Rejected(str(exc)) from None
        return conn

    def snapshot(self, when: str) -> Tables:
        """See :class:`Backend`."""
        assert self._conn is not None
        return snapshot(self._conn, when)

    def settle(self) -> None:
        """See :class:`Backend`."""
        if self._conn is not None and self._conn.in_transaction:
            self._conn.commit()

    def discard(self) -> None:
        """See :class:`Backend`."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


@dataclass
class Outcome:
    """One example: ``status`` is ``ok``, ``rejected`` (the content breaks the schema's own constraints),
    ``failed`` (rule ``index`` does not hold), ``raised`` (the migration raised: ``message``), ``missing`` (a
    rule read a table that does not exist) or ``error`` (the rule itself raised); with both snapshots."""

    status: str
    index: int = 0
    message: str = ""
    before: Tables | None = None
    after: Tables | None = None


def run_example(ddl: str, tables: list[Table], content: dict[str, list[tuple[Any, ...]]],
                migrate: Callable[[Any], Any], check: Callable[[Tables, Tables], int],
                backend: Backend | None = None) -> Outcome:
    """On a throw-away database of ``backend`` (default: SQLite in memory), create ``ddl``, insert
    ``content``, snapshot, run ``migrate(conn)``, snapshot again and evaluate ``check(before, after)``; the
    database is dropped afterwards."""
    db: Backend = backend if backend is not None else SqliteBackend()
    try:
        try:
            conn = db.fresh(ddl, tables, content)
        except Rejected as exc:
            return Outcome("rejected", message=str(exc))
        before = db.snapshot("before")
        try:
            migrate(conn)
            db.settle()
        except Exception as exc:  # noqa: BLE001 - the migration failing on valid contents is a finding
            return Outcome("raised", message=f"{type(exc).__name__}: {exc}", before=before)
        after = db.snapshot("after")
        try:
            idx = check(before, after)
        except MissingTable as exc:
            return Outcome("missing", message=str(exc), before=before, after=after)
        except Exception as exc:  # noqa: BLE001 - the spec's own expression raised
            return Outcome("error", message=f"{type(exc).__name__}: {exc}", before=before, after=after)
        return Outcome("failed" if idx else "ok", int(idx), before=before, after=after)
    finally:
        db.discard()
