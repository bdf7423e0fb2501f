"""The SQL fast path (sql/connection/execution.py) keeps compiled statements by identity: the adapter builds each
statement once, and a statement built per call is refused once the bounded cache is full instead of growing it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, Executable, text

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.connection.execution import MAX_COMPILED, STATEMENTS, StatementCache, TooManyStatements
from scratchpad_core.bounds import SUMMARY_THRESHOLD_CHARS
from scratchpad_core.service import Scratchpad
from tests.conftest import SQL_ONLY, FakeSummarizer

BUILT_ONCE = text("SELECT :n AS n")  # built at import, as the repositories build theirs


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'fast-path.db'}")
    yield engine
    engine.dispose()


def built_per_call(n: int) -> Executable:
    return text(f"SELECT {n} AS n")  # a new statement object on every call, as a misuse would build one


def test_a_statement_built_once_is_compiled_once(engine: Engine) -> None:
    cache = StatementCache(limit=2)
    with engine.connect() as c, c.begin():
        assert [cache.run(c, BUILT_ONCE, {"n": n}).one().n for n in range(50)] == list(range(50))
    assert len(cache) == 1


def test_statements_built_per_call_are_refused_once_the_cache_is_full(engine: Engine) -> None:
    cache = StatementCache(limit=3)
    with engine.connect() as c, c.begin():
        assert cache.run(c, BUILT_ONCE, {"n": 7}).one().n == 7
        assert [cache.run(c, built_per_call(n), {}).scalar() for n in (1, 2)] == [1, 2]
        with pytest.raises(TooManyStatements, match=r"holds 3 compiled statements.*'SELECT 3 AS n'"):
            cache.run(c, built_per_call(3), {})
        assert len(cache) == 3  # the refused statement is not kept
        assert cache.run(c, BUILT_ONCE, {"n": 8}).one().n == 8  # statements built once still run


def workload(store: Scratchpad, agent: str) -> None:
    """Every use case, on each of its storage branches (new file, tombstone, expected versions, pages...)."""
    store.write_file(agent, "notes/a.md", "one\ntwo\n")
    store.write_file(agent, "notes/a.md", "one\n2\n", expected_version=1)
    store.write_file(agent, "notes/b.md", "b\n", expected_version=0)
    store.edit_file(agent, "notes/a.md", "one", "1")
    store.insert_lines(agent, "notes/a.md", 1, "zero")
    store.read_file(agent, "notes/a.md")
    store.read_file(agent, "notes/a.md", since_version=1)
    store.read_file(agent, "notes/a.md", version=2)
    store.list_versions(agent, "notes/a.md")
    store.restore_version(agent, "notes/a.md", 1, expected_version=4)
    page = store.list_files(agent, "notes/", limit=1)
    store.list_files(agent, "notes/", limit=1, cursor=page.next_cursor)
    store.list_files(agent)
    store.search_files(agent, "zero", "notes/")
    store.write_file(agent, "big.md", "word\n" * (SUMMARY_THRESHOLD_CHARS // 4))
    store.summarize_file(agent, "big.md")
    store.summarize_file(agent, "big.md")  # from the stored summary
    store.append_log(agent, "logs/run.md", "started")
    store.append_log(agent, "logs/run.md", "done")
    store.read_log(agent, "logs/run.md")
    store.read_log(agent, "logs/run.md", since_entry=1, limit=1)
    store.read_log(agent, "logs/run.md", tail=1)
    store.list_logs(agent)
    store.list_logs(agent, "logs/")
    store.delete_log(agent, "logs/run.md")
    store.append_log(agent, "logs/run.md", "again")  # a deleted log's numbering continues
    store.delete_file(agent, "notes/b.md")
    store.write_file(agent, "notes/b.md", "b again\n", expected_version=0)  # over a tombstone
    store.delete_file(agent, "notes/b.md", expected_version=2)
    store.get_usage_stats(agent)


@SQL_ONLY
def test_the_adapter_builds_each_statement_it_runs_once(database_url: str) -> None:
    with open_store(database_url, summarizer=FakeSummarizer()) as store:
        workload(store, "agent-a")
        compiled = len(STATEMENTS)
        assert compiled > 0  # the workload's statements go through the fast path
        workload(store, "agent-b")  # the same calls with other values: nothing new to compile
        assert len(STATEMENTS) == compiled
    assert compiled <= MAX_COMPILED // 2  # both dialects' statements, with room to spare


def test_the_rows_read_by_position_are_selected_in_their_records_order() -> None:
    """A listing builds FileInfos (and FileRecords), a read_log page LogEntries, from the driver's values by
    position (no dict per row): the columns selected must stay in the records' field order."""
    from scratchpad_adapters.sql.repositories import file_repository, log_repository
    from scratchpad_core.model import FileInfo, FileRecord, LogEntry

    head = [field.name for field in dataclasses.fields(FileRecord)]
    assert [column.name for column in file_repository._HEAD_ROW] == head  # (not the index's marker)
    assert [column.name for column in file_repository._INFO] == [field.name for field in dataclasses.fields(FileInfo)]
    selected = [column.name for column in log_repository._ENTRIES.selected_columns]
    assert selected == ["entry_id", "entry", "created_at", "actor"]
    assert [field.name for field in dataclasses.fields(LogEntry)] == ["id", "entry", "created_at", "by"]


def test_rows_give_values_dicts_and_scalars_alike(engine: Engine) -> None:
    statement = text("SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, 'y'")
    with engine.connect() as c, c.begin():
        rows = StatementCache().run(c, statement, {})
    assert rows.values == [(1, "x"), (2, "y")]
    assert rows.rows == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}] and rows.rows[1].b == "y"
    assert rows.scalars() == [1, 2] and rows.scalar() == 1 and rows.first() == {"a": 1, "b": "x"}
