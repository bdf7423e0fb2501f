"""Open a store from a URL: the one composition root that the library and the server share."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_data_dir
from sqlalchemy import Engine, text

from scratchpad_core.keys import ApiKeys, RateLimiter
from scratchpad_core.limits import Limits
from scratchpad_core.ports import Summarizer
from scratchpad_core.service import Scratchpad
from scratchpad_core.usecases.base import wall_clock_ms

from .anthropic_summarizer import AnthropicSummarizer
from .regex_engine import BoundedRegexEngine
from .sql import migrate
from .sql.dialect import LOCK_TIMEOUT_MS, make_engine
from .sql.keys import SqlKeyStore, SqlRateLimiter
from .sql.unit_of_work import SqlUnitOfWork
from .sql.watchdog import CALL_TIMEOUT_S, watched

APP_NAME = "scratchpad-mcp"


def default_database_path() -> Path:
    return Path(user_data_dir(APP_NAME, appauthor=False)) / "scratchpad.db"


def sqlite_url(path: str | os.PathLike[str]) -> str:
    return f"sqlite:///{Path(path).expanduser().resolve()}"


@dataclass
class Backend:
    """Everything bound to one database: the use cases, API keys, rate limits and health."""

    engine: Engine
    pad: Scratchpad
    keys: ApiKeys
    head_revision: str | None = field(default=None)

    def rate_limiter(self, per_second: float, burst: int) -> RateLimiter:
        return SqlRateLimiter(self.engine, per_second, burst, wall_clock_ms)

    def readiness(self) -> str | None:
        """None when the database answers and its schema is at head; otherwise what is wrong."""
        try:
            with self.engine.connect() as connection, watched(connection):  # bounded, even on a frozen network
                connection.execute(text("SELECT 1"))
                current = migrate.revision_on(connection)
        except Exception as error:
            return f"database unreachable ({type(error).__name__})"
        if current != self.head_revision:
            return f"schema at {current or 'nothing'}, expected {self.head_revision}"
        return None

    def close(self) -> None:
        self.engine.dispose()


def open_backend(
    url: str | None = None,
    *,
    limits: Limits | None = None,
    summarizer: Summarizer | None = None,
    upgrade: bool = True,
    lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    call_timeout_s: float = CALL_TIMEOUT_S,
) -> Backend:
    """Connect to the database at `url` (default: a SQLite file in the user's data directory).

    The schema is brought to the newest migration first unless upgrade=False.
    """
    engine = make_engine(
        url or sqlite_url(default_database_path()), lock_timeout_ms=lock_timeout_ms, call_timeout_s=call_timeout_s
    )
    try:
        if upgrade:
            migrate.upgrade(engine)
    except BaseException:
        engine.dispose()
        raise
    pad = Scratchpad(
        functools.partial(SqlUnitOfWork, engine),
        limits,
        summarizer=summarizer or AnthropicSummarizer(),
        regex_engine=BoundedRegexEngine(),
        on_close=engine.dispose,
    )
    return Backend(engine, pad, ApiKeys(SqlKeyStore(engine), wall_clock_ms), migrate.head_revision())


def open_store(
    url: str | None = None,
    *,
    limits: Limits | None = None,
    summarizer: Summarizer | None = None,
    upgrade: bool = True,
    lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    call_timeout_s: float = CALL_TIMEOUT_S,
) -> Scratchpad:
    """A Scratchpad on the database at `url`; close it (or use it as a context manager) when done."""
    return open_backend(
        url,
        limits=limits,
        summarizer=summarizer,
        upgrade=upgrade,
        lock_timeout_ms=lock_timeout_ms,
        call_timeout_s=call_timeout_s,
    ).pad
