"""INSERT ... ON CONFLICT in each backend's dialect, built once per table and key and reused."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert


def insert_ignore(connection: Connection, table: Table, keys: Sequence[str]) -> Insert:
    """INSERT ... ON CONFLICT (keys) DO NOTHING for this connection's dialect; execute it with the values."""
    return _insert_ignore(connection.dialect.name, table, tuple(keys))


def upsert(connection: Connection, table: Table, keys: Sequence[str], columns: Sequence[str]) -> Insert:
    """INSERT ... ON CONFLICT (keys) DO UPDATE SET the other columns; execute it with the values."""
    return _upsert(connection.dialect.name, table, tuple(keys), tuple(columns))


@functools.cache
def _insert_ignore(dialect: str, table: Table, keys: tuple[str, ...]) -> Insert:
    return _insert(dialect, table).on_conflict_do_nothing(index_elements=list(keys))


@functools.cache
def _upsert(dialect: str, table: Table, keys: tuple[str, ...], columns: tuple[str, ...]) -> Insert:
    stmt = _insert(dialect, table)
    changed = {name: stmt.excluded[name] for name in columns if name not in keys}
    return stmt.on_conflict_do_update(index_elements=list(keys), set_=changed)


def _insert(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)
