"""Engines set up for scratchpad's transactions on each backend, and the per-transaction settings.

- SQLite: WAL, foreign keys, a busy timeout, and BEGIN IMMEDIATE for every transaction but a snapshot read;
- Postgres: psycopg with a lock timeout, keepalives, a pool with pre-ping and a bounded wait per call;
- snapshot reads that block no writer, and relaxed durability for bookkeeping.
"""

from __future__ import annotations

import math
import sqlite3
import time
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL
from sqlalchemy.pool import QueuePool

from scratchpad_core.errors import InvalidInput

from ...timeouts import CALL_TIMEOUT_S, LOCK_TIMEOUT_MS
from . import sqlite_files
from .execution import run
from .urls import accepted
from .watchdog import CALL_TIMEOUT_OPTION, watch_pings

_SNAPSHOT_OPTION = "scratchpad_snapshot"
_BEGIN_IMMEDIATE = text("BEGIN IMMEDIATE")
_BEGIN_DEFERRED = text("BEGIN")


def make_engine(
    url: str | URL,
    *,
    lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    call_timeout_s: float = CALL_TIMEOUT_S,
    **options: Any,
) -> Engine:
    """An engine set up for scratchpad's transactions on this backend.

    lock_timeout_ms bounds each wait for a lock (SQLite's busy timeout, Postgres's lock_timeout);
    a call that waits longer fails as StorageBusy and is retried. call_timeout_s bounds a Postgres
    transaction (and a pool's pre-ping) waiting on a database that stopped answering.
    """
    if not (math.isfinite(call_timeout_s) and call_timeout_s > 0):
        raise InvalidInput(f"Invalid call timeout {call_timeout_s!r}: use a number of seconds above 0.")
    with accepted(url) as parsed:
        if parsed.get_backend_name() == "sqlite":
            return _sqlite_engine(parsed, lock_timeout_ms, **options)
        engine = _postgres_engine(parsed, lock_timeout_ms, **options)  # accepted() lets only these two through
        watch_pings(engine, call_timeout_s)
        return engine.execution_options(**{CALL_TIMEOUT_OPTION: call_timeout_s})


def _postgres_engine(parsed: URL, lock_timeout_ms: int, **options: Any) -> Engine:
    options.setdefault("hide_parameters", True)  # errors may be logged: never with the content they carried
    options.setdefault("pool_pre_ping", True)
    options.setdefault("pool_size", 10)
    options.setdefault("max_overflow", 10)
    connect_args = dict(options.pop("connect_args", {}))
    connect_args.setdefault("options", f"-c lock_timeout={lock_timeout_ms}")
    connect_args.setdefault("connect_timeout", 5)
    # Keepalives find a connection whose peer vanished (a network partition) instead of waiting on it forever.
    connect_args.setdefault("keepalives", 1)
    connect_args.setdefault("keepalives_idle", 10)
    connect_args.setdefault("keepalives_interval", 5)
    connect_args.setdefault("keepalives_count", 3)
    return create_engine(parsed, connect_args=connect_args, **options)


def _sqlite_engine(url: URL, lock_timeout_ms: int, **options: Any) -> Engine:
    file = sqlite_files.file_of(url)
    if file is None:  # in memory
        # One connection, handed to one transaction at a time: the pool serializes them.
        options.update(poolclass=QueuePool, pool_size=1, max_overflow=0)
    else:
        sqlite_files.prepare(file, writable=not url.query.get("uri"))
    options.setdefault("hide_parameters", True)
    connect_args = dict(options.pop("connect_args", {}))
    connect_args.setdefault("check_same_thread", False)
    connect_args.setdefault("timeout", lock_timeout_ms / 1000)
    engine = create_engine(url, connect_args=connect_args, **options)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        if file is not None:
            _use_wal(cursor)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(lock_timeout_ms)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        # Take the write lock up front: a deferred transaction that later writes fails busy instead of waiting.
        # A snapshot read (export) begins deferred and so never blocks writers.
        deferred = connection.get_execution_options().get(_SNAPSHOT_OPTION)
        run(connection, _BEGIN_DEFERRED if deferred else _BEGIN_IMMEDIATE, {})

    return engine


def _use_wal(cursor: Any, attempts: int = 100) -> None:
    """Switch a SQLite file to WAL (once per file; it persists). Processes opening a new file together race
    for this, and the loser gets 'database is locked' at once, without waiting: so wait here, briefly."""
    for attempt in range(attempts):
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.05)


def snapshot(connection: Connection) -> Connection:
    """Make the connection's next transaction a consistent, read-only snapshot that does not block writers."""
    if connection.dialect.name == "postgresql":
        return connection.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    return connection.execution_options(**{_SNAPSHOT_OPTION: True})


def relaxed_durability(connection: Connection) -> None:
    """Let this transaction commit without waiting for its WAL flush (Postgres).

    For bookkeeping only (rate-limit buckets, a key's last use): a crash may lose its last
    fraction of a second, which costs nothing, while the stored data keeps full durability.
    SQLite in WAL mode with synchronous=NORMAL already commits without a flush.
    """
    if connection.dialect.name == "postgresql":
        connection.execute(text("SET LOCAL synchronous_commit TO OFF"))
