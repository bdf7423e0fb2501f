"""Shared fixtures: real stores only (a SQLite file per test; a Postgres database per session; a named
in-memory store per test).

Postgres runs when SCRATCHPAD_TEST_POSTGRES_URL points at a server whose user may create
databases (e.g. postgresql+psycopg://postgres@127.0.0.1:5432/postgres); otherwise those
tests are skipped with that reason.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bench.common import create_database, drop_database
from scratchpad_adapters import memory, open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.schema.tables import metadata
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad

POSTGRES_ENV = "SCRATCHPAD_TEST_POSTGRES_URL"
SQL_BACKENDS = ["sqlite", "postgres"]
BACKENDS = [*SQL_BACKENDS, "memory"]
# For a test that needs a database, not a store (another process, or SQL of its own): say why beside it.
SQL_ONLY = pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)


class FakeSummarizer:
    """A Summarizer that records its calls (tests of the real SDK path live in tests/adapters)."""

    model = "fake-model"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def summarize(self, path: str, content: str) -> str:
        self.calls.append(path)
        return f"summary of {path} ({len(content)} chars)"


def postgres_admin_url() -> str | None:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        return None
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def create_postgres_database(prefix: str = "scratchpad_test") -> str:
    """A new, empty database on the test server; returns its URL."""
    admin = postgres_admin_url()
    if admin is None:
        pytest.skip(f"{POSTGRES_ENV} is not set; Postgres tests need a server that lets them create databases")
    return create_database(admin, prefix)


def drop_postgres_database(url: str) -> None:
    admin = postgres_admin_url()
    assert admin is not None
    drop_database(admin, url)


@pytest.fixture(scope="session")
def postgres_session_url() -> Iterator[str]:
    """One migrated Postgres database for the session; tests empty it before use."""
    url = create_postgres_database()
    engine = make_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    yield url
    drop_postgres_database(url)


def empty_postgres(url: str) -> None:
    engine = make_engine(url)
    tables = ", ".join(f'"{t.name}"' for t in metadata.sorted_tables)
    with engine.begin() as connection:
        connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    engine.dispose()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty store on each backend: a fresh SQLite file, the emptied session Postgres, or a memory://NAME
    of this test's own (kept open for the whole test, so it lasts as a database does between stores)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'scratchpad.db'}"
    elif request.param == "memory":
        url = f"memory://test-{uuid.uuid4().hex}"
        connection = memory.connect(url)
        yield url
        connection.close()
    else:
        postgres: str = request.getfixturevalue("postgres_session_url")
        empty_postgres(postgres)
        yield postgres


@pytest.fixture(params=SQL_BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A brand-new database with no tables at all: a SQLite file, or a Postgres database made for this test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    url = create_postgres_database("scratchpad_empty")
    yield url
    drop_postgres_database(url)


StoreFactory = Callable[..., Scratchpad]


@pytest.fixture
def make_store(database_url: str) -> Iterator[StoreFactory]:
    """Open stores on this test's database; each is closed at the end of the test."""
    opened: list[Scratchpad] = []

    def factory(limits: Limits | None = None, **options: Any) -> Scratchpad:
        options.setdefault("summarizer", FakeSummarizer())
        store = open_store(database_url, limits=limits, **options)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> Scratchpad:
    return make_store()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Skipped tests as one line a reason, with their count (pyproject's -r leaves out pytest's line a test):
    without Postgres, one line says how many tests it would have run. `-rs` still lists them one by one."""
    if "s" in config.option.reportchars:
        return
    reasons: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr).removeprefix("Skipped: ")
        reasons[reason] += 1
    for reason, count in reasons.most_common():
        terminalreporter.write_line(f"{count} skipped: {reason}")
