"""After a redaction, the removed text leaves the database's files too (SQLite): the full-text index merged
(a deleted row's terms stay in its segments until then), every page rewritten from the live rows with
secure_delete on (VACUUM: no free page keeps an old copy), and the write-ahead log checkpointed and truncated.
Once every process has closed the database, no file of it holds the text. PostgreSQL keeps old row versions
until VACUUM: an operator runs `VACUUM FULL` (the README says so); nothing here can do it for them."""

from __future__ import annotations

import contextlib
import sqlite3

from sqlalchemy import Engine

from .sqlite_files import file_of


def scrub(engine: Engine) -> bool:
    """Rewrite a SQLite database without what was removed from it; False for another database (nothing done)."""
    if engine.dialect.name != "sqlite":
        return False
    path = file_of(engine.url)
    if path is None:
        return False
    engine.dispose()  # this process's pooled connections: none may hold the old pages
    with contextlib.closing(sqlite3.connect(path, timeout=30, isolation_level=None)) as connection:
        connection.execute("PRAGMA secure_delete = ON")
        has_index = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'search_fts'").fetchone()
        if has_index:
            connection.execute("INSERT INTO search_fts(search_fts) VALUES ('optimize')")
        connection.execute("VACUUM")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return True
