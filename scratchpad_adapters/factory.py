"""Open a store from a URL: the one composition root that the library and the server share."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

from scratchpad_core.limits import Limits
from scratchpad_core.ports import Summarizer
from scratchpad_core.service import Scratchpad

from .anthropic_summarizer import AnthropicSummarizer
from .regex_engine import BoundedRegexEngine
from .sql import migrate
from .sql.dialect import LOCK_TIMEOUT_MS, make_engine
from .sql.unit_of_work import SqlUnitOfWork

APP_NAME = "scratchpad-mcp"


def default_database_path() -> Path:
    return Path(user_data_dir(APP_NAME, appauthor=False)) / "scratchpad.db"


def sqlite_url(path: str | os.PathLike[str]) -> str:
    return f"sqlite:///{Path(path).expanduser().resolve()}"


def open_store(
    url: str | None = None,
    *,
    limits: Limits | None = None,
    summarizer: Summarizer | None = None,
    upgrade: bool = True,
    lock_timeout_ms: int = LOCK_TIMEOUT_MS,
) -> Scratchpad:
    """A Scratchpad on the database at `url` (default: a SQLite file in the user's data directory).

    The schema is brought to the newest migration first unless upgrade=False.
    """
    engine = make_engine(url or sqlite_url(default_database_path()), lock_timeout_ms=lock_timeout_ms)
    try:
        if upgrade:
            migrate.upgrade(engine)
    except BaseException:
        engine.dispose()
        raise
    return Scratchpad(
        lambda: SqlUnitOfWork(engine),
        limits,
        summarizer=summarizer or AnthropicSummarizer(),
        regex_engine=BoundedRegexEngine(),
        on_close=engine.dispose,
    )
