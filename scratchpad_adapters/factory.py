"""Open a store from a URL: the one composition root that the library and the server share."""

from __future__ import annotations

import functools
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict, Unpack

from platformdirs import user_data_dir
from sqlalchemy import Engine, text

from scratchpad_core.access.keys import ApiKeys
from scratchpad_core.changes import ChangeFeed
from scratchpad_core.limits import Limits
from scratchpad_core.ports import Clock, RateLimiter, Summarizer, UnitOfWorkFactory
from scratchpad_core.service import Scratchpad
from scratchpad_core.usecases.base import wall_clock_ms

from . import memory
from .anthropic_summarizer import AnthropicSummarizer
from .changes import MemoryChangeFeed, PostgresChangeFeed, SqliteChangeFeed
from .memory import MemoryDatabase, MemoryKeyStore, MemoryRateLimiter, MemoryUnitOfWork, is_memory_url
from .regex_engine import BoundedRegexEngine
from .sql.connection import sqlite_files
from .sql.connection.engine import make_engine
from .sql.connection.held import HeldConnection
from .sql.connection.turns import WriterTurns
from .sql.connection.watchdog import watched
from .sql.repositories.keys import SqlKeyStore, SqlRateLimiter
from .sql.repositories.retention_repository import KnownRules
from .sql.schema import migrate
from .sql.unit_of_work import SqlUnitOfWork
from .stemming import default_analyzer
from .timeouts import CALL_TIMEOUT_S, LOCK_TIMEOUT_MS

APP_NAME = "scratchpad-mcp"


def default_database_path() -> Path:
    return Path(user_data_dir(APP_NAME, appauthor=False)) / "scratchpad.db"


def sqlite_url(path: str | os.PathLike[str]) -> str:
    return f"sqlite:///{Path(path).expanduser().resolve()}"


class Backend(ABC):
    """Everything bound to one store: the use cases and their unit of work, API keys, rate limits and health."""

    def __init__(self, store: Scratchpad, keys: ApiKeys, unit_of_work: UnitOfWorkFactory) -> None:
        self.store = store
        self.keys = keys
        self.unit_of_work = unit_of_work
        self._feeds: list[ChangeFeed] = []  # the feeds still open

    @abstractmethod
    def rate_limiter(self, per_second: float, burst: int, clock: Clock = wall_clock_ms) -> RateLimiter: ...

    @abstractmethod
    def readiness(self) -> str | None:
        """None when the store answers and its schema is at head; otherwise what is wrong."""

    def change_feed(self) -> ChangeFeed:
        """A new feed of the store's committed file changes from now on, for the caller to close (the backend
        closes what is left open): from every process on PostgreSQL, from this one on SQLite and in memory."""
        feed = self._open_feed()
        self._feeds = [*(open_feed for open_feed in self._feeds if not open_feed.closed), feed]
        return feed

    @abstractmethod
    def _open_feed(self) -> ChangeFeed: ...

    def close(self) -> None:
        for feed in self._feeds:
            feed.close()  # closing twice is harmless
        self.store.close()


class SqlBackend(Backend):
    def __init__(self, engine: Engine, store: Scratchpad, keys: ApiKeys, unit_of_work: UnitOfWorkFactory) -> None:
        super().__init__(store, keys, unit_of_work)
        self.engine = engine
        self.head_revision = migrate.head_revision()

    @classmethod
    def open(
        cls,
        engine: Engine,
        limits: Limits | None,
        summarizer: Summarizer,
        lock_timeout_ms: int = LOCK_TIMEOUT_MS,
        writer_turns: bool = False,
    ) -> SqlBackend:
        on_a_file = sqlite_files.file_of(engine.url) is not None  # a connection out of the pool, turns (held, turns)
        held = HeldConnection(engine) if on_a_file else None
        turns = WriterTurns(lock_timeout_ms) if on_a_file and writer_turns else None
        unit_of_work = functools.partial(
            SqlUnitOfWork, engine, held=held, turns=turns, analyzer=default_analyzer(), known=KnownRules()
        )

        def close() -> None:
            if held is not None:
                held.close()
            engine.dispose()

        store = _scratchpad(unit_of_work, limits, summarizer, on_close=close)
        return cls(engine, store, ApiKeys(SqlKeyStore(engine), wall_clock_ms), unit_of_work)

    def rate_limiter(self, per_second: float, burst: int, clock: Clock = wall_clock_ms) -> RateLimiter:
        return SqlRateLimiter(self.engine, per_second, burst, clock)

    def readiness(self) -> str | None:
        try:
            with self.engine.connect() as connection, watched(connection):  # bounded, even on a frozen network
                connection.execute(text("SELECT 1"))
                current = migrate.revision_on(connection)
        except Exception as error:
            return f"database unreachable ({type(error).__name__})"
        if current != self.head_revision:
            return f"schema at {current or 'nothing'}, expected {self.head_revision}"
        return None

    def _open_feed(self) -> ChangeFeed:
        if self.engine.dialect.name == "postgresql":
            return PostgresChangeFeed(self.engine)
        return SqliteChangeFeed(self.engine)


class MemoryBackend(Backend):
    def __init__(
        self, database: MemoryDatabase, store: Scratchpad, keys: ApiKeys, unit_of_work: UnitOfWorkFactory
    ) -> None:
        super().__init__(store, keys, unit_of_work)
        self.database = database

    @classmethod
    def open(cls, url: str, limits: Limits | None, summarizer: Summarizer, lock_timeout_ms: int) -> MemoryBackend:
        connection = memory.connect(url)
        unit_of_work = functools.partial(
            MemoryUnitOfWork, connection.database, lock_timeout_ms=lock_timeout_ms, analyzer=default_analyzer()
        )
        store = _scratchpad(unit_of_work, limits, summarizer, on_close=connection.close)
        return cls(
            connection.database, store, ApiKeys(MemoryKeyStore(connection.database), wall_clock_ms), unit_of_work
        )

    def rate_limiter(self, per_second: float, burst: int, clock: Clock = wall_clock_ms) -> RateLimiter:
        return MemoryRateLimiter(self.database, per_second, burst, clock)

    def readiness(self) -> str | None:
        return None  # in this process: it answers while the process does

    def _open_feed(self) -> ChangeFeed:
        return MemoryChangeFeed(self.database)


def open_backend(
    url: str | None = None,
    *,
    limits: Limits | None = None,
    summarizer: Summarizer | None = None,
    upgrade: bool = True,
    lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    call_timeout_s: float = CALL_TIMEOUT_S,
    writer_turns: bool = False,
) -> Backend:
    """Connect to the store at `url` (default: a SQLite file in the user's data directory).

    A database's schema is brought to the newest migration first unless upgrade=False. memory:// is a new
    store in this process's memory; memory://NAME the one shared by every store opened on NAME, while any is.
    writer_turns: on a SQLite file, units of work wait for each other on a lock of the store's (sql.turns), the
    HTTP server's choice: a call's p99 under many writers, for some of the throughput of many threads in process.
    """
    url = url or sqlite_url(default_database_path())
    summarizer = summarizer or AnthropicSummarizer()
    if is_memory_url(url):
        return MemoryBackend.open(url, limits, summarizer, lock_timeout_ms)
    engine = make_engine(url, lock_timeout_ms=lock_timeout_ms, call_timeout_s=call_timeout_s)
    try:
        if upgrade:
            migrate.upgrade(engine)
    except BaseException:
        engine.dispose()
        raise
    return SqlBackend.open(engine, limits, summarizer, lock_timeout_ms, writer_turns)


def _scratchpad(
    unit_of_work: UnitOfWorkFactory, limits: Limits | None, summarizer: Summarizer, on_close: Callable[[], None]
) -> Scratchpad:
    return Scratchpad(unit_of_work, limits, summarizer=summarizer, regex_engine=BoundedRegexEngine(), on_close=on_close)


class StoreOptions(TypedDict, total=False):
    """open_backend's keyword arguments, which open_store passes on (their defaults are open_backend's)."""

    limits: Limits | None
    summarizer: Summarizer | None
    upgrade: bool
    lock_timeout_ms: int
    call_timeout_s: float


def open_store(url: str | None = None, **options: Unpack[StoreOptions]) -> Scratchpad:
    """A Scratchpad on the store at `url`, opened as open_backend does; close it (or use it as a context manager)."""
    return open_backend(url, **options).store
