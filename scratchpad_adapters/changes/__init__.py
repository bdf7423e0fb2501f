"""Change feeds: a store's committed file changes, told to listeners (scratchpad_core.changes.ChangeFeed).

PostgreSQL tells every process through LISTEN/NOTIFY (a trigger notifies in the writing transaction, so a
notice goes out only with its commit); SQLite and the in-memory store tell listeners in the same process.
"""

from __future__ import annotations

from .listeners import Listeners
from .memory import MemoryChangeFeed
from .postgres import PostgresChangeFeed
from .sqlite import SqliteChangeFeed

__all__ = ["Listeners", "MemoryChangeFeed", "PostgresChangeFeed", "SqliteChangeFeed"]
