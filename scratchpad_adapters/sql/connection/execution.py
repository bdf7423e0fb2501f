"""Run prebuilt statements on the DBAPI cursor of the unit of work's connection.

SQLAlchemy builds each statement once and compiles it once per dialect; this module runs the
compiled SQL directly on the driver's cursor: about 7 µs a statement instead of about 70 µs
through Connection.execute, which was most of a tool call's time. Driver errors are wrapped as
SQLAlchemy's DBAPIError, and a connection the driver reports as gone is invalidated, as
Connection.execute would do.

Compiled forms are kept by the statement's identity, so only statements built once belong here:
at import, or by a builder cached on a bounded key (functools.cache over flags, tables, key names).
The cache is bounded (MAX_COMPILED): a statement built per call would fill it, and then run()
raises TooManyStatements instead of holding every statement it was ever given. Run a statement
built per call with Connection.execute.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import Connection, exc
from sqlalchemy.sql import Executable


class Row(dict[str, Any]):
    """A result row: a dict of column name to value, also readable as attributes."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class Rows:
    """A statement's result: its rows as the driver gave them (values, in the order selected), as Row dicts when
    asked (built once), and the row count."""

    def __init__(self, names: list[str], values: Sequence[Any], rowcount: int) -> None:
        self.names = names
        self.values = values
        self.rowcount = rowcount

    @functools.cached_property
    def rows(self) -> list[Row]:
        return [Row(zip(self.names, row, strict=True)) for row in self.values]

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def first(self) -> Row | None:
        return self.rows[0] if self.values else None

    def one(self) -> Row:
        if len(self.values) != 1:
            raise exc.NoResultFound(f"expected one row, got {len(self.values)}")
        return self.rows[0]

    def scalar(self) -> Any:
        return self.values[0][0] if self.values else None

    def scalars(self) -> list[Any]:
        return [row[0] for row in self.values]


T = TypeVar("T")

MAX_COMPILED = 512  # (statement, dialect, parameter names) kept compiled; the adapter uses about 40 a dialect

_Key = tuple[int, str, tuple[str, ...]]
_Prepared = tuple[Executable, str, tuple[str, ...] | None, Any]  # the statement (keeps its id unique), SQL, order


class TooManyStatements(RuntimeError):
    """run() was given more distinct statements than statements built once can be: one is built per call."""


class StatementCache:
    """The compiled forms run() reuses, by statement identity, dialect and parameter names; at most `limit`."""

    def __init__(self, limit: int = MAX_COMPILED) -> None:
        self.limit = limit
        self._compiled: dict[_Key, _Prepared] = {}

    def __len__(self) -> int:
        return len(self._compiled)

    def run(
        self, connection: Connection, statement: Executable, params: Mapping[str, Any], *, planned: bool = True
    ) -> Rows:
        """Execute a statement built once with these parameters inside the connection's transaction.

        planned=False (PostgreSQL): never as a server-side prepared statement, so the server plans it for each
        call's values and the table as it is now (a plan kept from when a table was small can cost a scan of it
        once it is large: the search index's term lookups, whose table a catch-up can grow a hundredfold)."""
        sql, order, compiled = self._prepared(connection, statement, params)
        values = compiled.construct_params(params)
        args: Any = [values[name] for name in order] if order is not None else values
        options = {} if planned or connection.dialect.name != "postgresql" else {"prepare": False}

        def execute(cursor: Any) -> Rows:
            cursor.execute(sql, args, **options)
            names = [column[0] for column in cursor.description] if cursor.description else []
            return Rows(names, cursor.fetchall() if names else [], cursor.rowcount)

        return _on_cursor(connection, sql, args, execute)

    def run_many(self, connection: Connection, statement: Executable, rows: Sequence[Mapping[str, Any]]) -> None:
        """Execute a statement built once for each of these parameter sets (the same keys), in one executemany."""
        if not rows:
            return
        sql, order, compiled = self._prepared(connection, statement, rows[0])
        values = [compiled.construct_params(row) for row in rows]
        args: Any = [[each[name] for name in order] for each in values] if order is not None else values
        _on_cursor(connection, sql, args, lambda cursor: cursor.executemany(sql, args))

    def _prepared(
        self, connection: Connection, statement: Executable, params: Mapping[str, Any]
    ) -> tuple[str, tuple[str, ...] | None, Any]:
        key = (id(statement), connection.dialect.name, tuple(sorted(params)))
        prepared = self._compiled.get(key)
        if prepared is None:
            prepared = self._compile(key, connection, statement, params)
        _, sql, order, compiled = prepared
        return sql, order, compiled

    def _compile(
        self, key: _Key, connection: Connection, statement: Executable, params: Mapping[str, Any]
    ) -> _Prepared:
        compiled = statement.compile(dialect=connection.dialect, column_keys=list(params))  # type: ignore[attr-defined]
        if len(self._compiled) >= self.limit:
            raise TooManyStatements(
                f"run() holds {len(self._compiled)} compiled statements, its limit: it is meant for statements built "
                "once (at import, or by a cached builder), and one is built per call. Build that statement once, "
                f"or run it with Connection.execute. This one: {compiled.string[:200]!r}"
            )
        order = tuple(compiled.positiontup) if compiled.positional else None
        prepared = self._compiled[key] = (statement, compiled.string, order, compiled)
        return prepared


def _on_cursor(connection: Connection, sql: str, args: Any, work: Callable[[Any], T]) -> T:
    """Run `work` on a new DBAPI cursor of the connection; a driver error is raised as SQLAlchemy's DBAPIError,
    and a connection the driver reports as gone is invalidated (as Connection.execute does)."""
    dialect = connection.dialect
    raw = connection.connection.dbapi_connection
    assert raw is not None, "the unit of work holds a live connection"
    cursor = raw.cursor()
    try:
        return work(cursor)
    except dialect.loaded_dbapi.Error as error:
        gone = dialect.is_disconnect(error, raw, cursor)
        if gone:
            connection.invalidate()
        raise exc.DBAPIError.instance(
            sql, args, error, dialect.loaded_dbapi.Error, connection_invalidated=gone, dialect=dialect
        ) from error
    finally:
        cursor.close()


STATEMENTS = StatementCache()
run = STATEMENTS.run
run_many = STATEMENTS.run_many
