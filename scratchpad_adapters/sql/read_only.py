"""Connections that refuse every write, for commands that only look at a store (the inspection commands):
SQLite's `query_only`, Postgres's `default_transaction_read_only`. The database itself, not only the code
path, then guarantees that looking changes nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event


def refuse_writes(engine: Engine) -> None:
    """Make each connection `engine` opens from now on read-only (call it before the first one)."""
    sqlite = engine.dialect.name == "sqlite"
    statement = "PRAGMA query_only = ON" if sqlite else "SET default_transaction_read_only = on"

    @event.listens_for(engine, "connect")
    def _read_only(dbapi_connection: Any, _record: Any) -> None:  # after the engine's own set-up (WAL, pragmas)
        cursor = dbapi_connection.cursor()
        cursor.execute(statement)
        cursor.close()
        if not sqlite:
            dbapi_connection.commit()  # psycopg began a transaction for the SET
