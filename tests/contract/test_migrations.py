"""Alembic migrations on both backends: upgrade, downgrade, upgrade again; the schema matches tables.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, event, inspect, text

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.schema.tables import metadata
from scratchpad_adapters.sql.search.terms import is_engine_object, is_engine_table
from scratchpad_core.access.keys import MAX_LABEL_CHARS
from scratchpad_core.paths import MAX_AGENT_ID_CHARS, MAX_PATH_CHARS
from tests.conftest import FakeSummarizer

CORE_TABLES = {"agents", "files", "file_versions", "logs", "log_entries", "summaries"}


@pytest.fixture
def engine(empty_url: str) -> Iterator[Engine]:
    engine = make_engine(empty_url)
    yield engine
    engine.dispose()


def table_names(engine: Engine) -> set[str]:
    """The tables, without those SQLite's FTS5 made for the search index (tables.py describes none of them)."""
    return {name for name in inspect(engine).get_table_names() if not is_engine_table(name)}


def versions(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        return [row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))]


def schema_diff(engine: Engine) -> list[Any]:
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"include_name": lambda name, kind, _: not is_engine_object(name, kind)}
        )
        return list(compare_metadata(context, metadata))


def test_upgrade_downgrade_upgrade(engine: Engine) -> None:
    assert table_names(engine) == set()
    head = migrate.head_revision()
    assert head is not None

    migrate.upgrade(engine)
    assert set(metadata.tables) >= CORE_TABLES
    assert table_names(engine) == set(metadata.tables) | {"alembic_version"}
    assert versions(engine) == [head]
    assert migrate.current_revision(engine) == head
    assert schema_diff(engine) == []

    migrate.downgrade(engine, "base")
    assert table_names(engine) == {"alembic_version"}
    assert versions(engine) == []
    assert migrate.current_revision(engine) is None

    migrate.upgrade(engine)
    assert versions(engine) == [head]
    assert schema_diff(engine) == []


def test_upgrading_a_migrated_database_applies_nothing(engine: Engine) -> None:
    migrate.upgrade(engine)
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        migrate.upgrade(engine)
    finally:
        event.remove(engine, "before_cursor_execute", record)

    changes = [
        s for s in statements if s.lstrip().split()[0].upper() in {"CREATE", "ALTER", "DROP", "INSERT", "UPDATE"}
    ]
    assert changes == []
    assert versions(engine) == [migrate.head_revision()]


def test_opening_a_store_twice_keeps_the_data(empty_url: str, engine: Engine) -> None:
    first = open_store(empty_url, summarizer=FakeSummarizer())
    try:
        first.write_file("agent", "f.txt", "kept\n")
        first.append_log("agent", "l.log", "entry")
    finally:
        first.close()
    head = migrate.head_revision()
    assert versions(engine) == [head]

    second = open_store(empty_url, summarizer=FakeSummarizer())
    try:
        assert second.read_file("agent", "f.txt").content == "kept\n"
        assert [e.entry for e in second.read_log("agent", "l.log").entries] == ["entry"]
        assert second.write_file("agent", "f.txt", "more\n").version == 2
    finally:
        second.close()
    assert versions(engine) == [head]
    assert schema_diff(engine) == []


def test_downgrading_below_tombstones_removes_them(empty_url: str, engine: Engine) -> None:
    """Revision 0003 gave deleted files and logs tombstone rows; older code has no place for them."""
    with open_store(empty_url, summarizer=FakeSummarizer()) as store:
        store.write_file("a", "gone.md", "x")
        store.delete_file("a", "gone.md")
        store.write_file("a", "kept.md", "y")
        store.append_log("a", "gone.log", "x")
        store.delete_log("a", "gone.log")
    migrate.downgrade(engine, "0002")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT path FROM files")).scalars().all() == ["kept.md"]
        assert connection.execute(text("SELECT count(*) FROM logs")).scalar_one() == 0
    migrate.upgrade(engine)
    with open_store(empty_url, summarizer=FakeSummarizer()) as store:
        assert store.write_file("a", "gone.md", "again").version == 1  # forgotten with the tombstone
        assert store.read_file("a", "kept.md").content == "y"


def test_the_migrated_widths_are_the_core_rules(engine: Engine) -> None:
    """Path, agent id and key label widths come from the core's rules; changing one needs a migration."""
    migrate.upgrade(engine)
    columns = {
        (table, c["name"]): c["type"]
        for table in ("files", "logs", "api_keys")
        for c in inspect(engine).get_columns(table)
    }
    assert columns[("files", "path")].length == MAX_PATH_CHARS  # type: ignore[attr-defined]
    assert columns[("logs", "path")].length == MAX_PATH_CHARS  # type: ignore[attr-defined]
    assert columns[("files", "agent_id")].length == MAX_AGENT_ID_CHARS  # type: ignore[attr-defined]
    assert columns[("api_keys", "label")].length == MAX_LABEL_CHARS  # type: ignore[attr-defined]
