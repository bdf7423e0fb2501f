"""Everything that differs between SQLite and Postgres, in one place.

- connecting: SQLite pragmas and BEGIN IMMEDIATE; Postgres pool pre-ping;
- insert-if-absent and upsert statements;
- serializing migrations across processes;
- which driver errors mean "busy, retry" and which mean "unreachable".
"""

from __future__ import annotations

import contextlib
import functools
import math
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Table, create_engine, event, exc, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import QueuePool
from sqlalchemy.sql.dml import Insert

from scratchpad_core.errors import InvalidInput, StorageBusy, StorageError, StorageUnavailable

from ..timeouts import CALL_TIMEOUT_S, LOCK_TIMEOUT_MS
from .execution import run
from .watchdog import CALL_TIMEOUT_OPTION, watch_pings

MIGRATION_LOCK_KEY = 0x5C7A7C4AD  # pg_advisory_xact_lock key shared by every replica
_PG_READ_ONLY = "25006"  # read_only_sql_transaction
_PG_BUSY_STATES = {"40001", "40P01", "55P03"}  # serialization failure, deadlock, lock not available
_PG_GONE_CLASSES = ("08", "57P01", "57P02", "57P03")  # connection exceptions, admin/crash shutdown
_SNAPSHOT_OPTION = "scratchpad_snapshot"
_BEGIN_IMMEDIATE = text("BEGIN IMMEDIATE")
_BEGIN_DEFERRED = text("BEGIN")
_GONE_WORDS = ("connection", "server closed", "could not connect", "terminating")


_URL_FORMS = "Use sqlite:///path/to/file.db or postgresql+psycopg://user:password@host:5432/dbname."


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
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            return _sqlite_engine(parsed, lock_timeout_ms, **options)
        if parsed.get_backend_name() == "postgresql":
            engine = _postgres_engine(parsed, lock_timeout_ms, **options)
            watch_pings(engine, call_timeout_s)
            return engine.execution_options(**{CALL_TIMEOUT_OPTION: call_timeout_s})
        raise InvalidInput(
            f"Unsupported database {safe_url(url)}: scratchpad runs on SQLite and PostgreSQL. {_URL_FORMS}"
        )
    except (exc.ArgumentError, ValueError, exc.NoSuchModuleError, ImportError) as error:
        shown = safe_url(url) if isinstance(error, (exc.NoSuchModuleError, ImportError)) else "the database URL"
        raise InvalidInput(f"Cannot use {shown}: {error}. {_URL_FORMS}") from None


def safe_url(url: str | URL) -> str:
    """The URL as it may be shown or logged: without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (exc.ArgumentError, ValueError):
        return "(an unparseable URL)"


def _postgres_engine(parsed: URL, lock_timeout_ms: int, **options: Any) -> Engine:
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
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
    database = url.database or ""
    in_memory = database in ("", ":memory:") or "mode=memory" in str(url)
    if in_memory:
        # One connection, handed to one transaction at a time: the pool serializes them.
        options.update(poolclass=QueuePool, pool_size=1, max_overflow=0)
    else:
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    options.setdefault("hide_parameters", True)
    connect_args = dict(options.pop("connect_args", {}))
    connect_args.setdefault("check_same_thread", False)
    connect_args.setdefault("timeout", lock_timeout_ms / 1000)
    engine = create_engine(url, connect_args=connect_args, **options)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        if not in_memory:
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


def lock_for_migration(connection: Connection) -> None:
    """Serialize migrations: concurrent starters wait, then find the schema already at head."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
    # SQLite: the migration transaction began with BEGIN IMMEDIATE, which already excludes other writers.


@contextlib.contextmanager
def classified() -> Iterator[None]:
    """Driver errors raised in the block become the domain's (busy or unavailable: retry) where they can."""
    try:
        yield
    except exc.DBAPIError as error:
        raise (classify(error) or error) from error


def classify(error: exc.DBAPIError) -> StorageError | None:
    original = error.orig
    state = getattr(original, "sqlstate", None) or ""
    message = str(original).lower()
    if state in _PG_BUSY_STATES or "database is locked" in message or "database is busy" in message:
        return StorageBusy("The database is busy with other writers; nothing was changed. Retry the call.")
    if state == _PG_READ_ONLY or "readonly database" in message:
        return StorageError(
            "The database is read-only (an administrator set it so, or it is a replica); nothing was changed. "
            "Every call records its use, so calls fail until the database accepts writes again; retry then."
        )
    if isinstance(error, exc.IntegrityError):
        return StorageBusy("A concurrent change collided with this one; nothing was changed. Retry the call.")
    gone = error.connection_invalidated or state.startswith(_PG_GONE_CLASSES) or isinstance(error, exc.InterfaceError)
    if gone or (isinstance(error, exc.OperationalError) and any(word in message for word in _GONE_WORDS)):
        return StorageUnavailable(
            "The database is unreachable or dropped the connection; nothing was committed. Retry in a moment."
        )
    return None
