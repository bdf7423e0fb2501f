"""Connections that refuse every write, for commands that only look at a store (the inspection commands):
SQLite connections are `query_only`, and each Postgres transaction begins `SET TRANSACTION READ ONLY` (a
session default would not do: the driver begins READ WRITE after a snapshot has reset its read-only flag).
The database itself, not only the code path, then guarantees that looking changes nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, event


def refuse_writes(engine: Engine) -> None:
    """Make every connection (SQLite) or transaction (Postgres) of `engine` read-only, before its first one."""
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _query_only(dbapi_connection: Any, _record: Any) -> None:  # after the engine's own set-up (WAL)
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA query_only = ON")
            cursor.close()

        return

    @event.listens_for(engine, "begin")
    def _read_only(connection: Connection) -> None:
        connection.exec_driver_sql("SET TRANSACTION READ ONLY")
