"""On PostgreSQL, finding an agent's index backlog reads the partial indexes that hold the backlog, not the table,
once the table is analysed (as autovacuum does on any deployment): a search's fixed cost does not grow with the
files of every agent (issue 29; found by an outside audit: 31 agents of 1,000 files each, a scan of 31,000 rows)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, Select, text

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.search.reads import _BEHIND, _LAGGING_FILES, _LAGGING_LOGS, SqlSearchReads
from scratchpad_adapters.stemming import default_analyzer
from tests.conftest import create_postgres_database, drop_postgres_database, postgres_admin_url

pytestmark = pytest.mark.skipif(postgres_admin_url() is None, reason="needs SCRATCHPAD_TEST_POSTGRES_URL")
AGENTS, FILES = 30, 1_000


@pytest.fixture(scope="module")
def analysed() -> Iterator[str]:
    """Agent w's 1,000 files, indexed, copied row by row for 30 more agents; every table analysed."""
    url = create_postgres_database("scratchpad_plans")
    with open_store(url) as store:
        for number in range(FILES):
            store.write_file("w", f"d/f{number:04}.md", f"file {number}\n")
        store.append_log("w", "run", "started")
        store.search_files("w", "file")  # catches the backlog up: none is left
    engine = make_engine(url)
    with engine.begin() as connection:
        names = [
            row[0]
            for row in connection.execute(
                text("SELECT column_name FROM information_schema.columns WHERE table_name = 'files' "
                     "AND column_name NOT IN ('id', 'agent_id')")
            )
        ]  # fmt: skip
        columns = ", ".join(names)
        for number in range(AGENTS):
            connection.execute(
                text(f"INSERT INTO files (agent_id, {columns}) SELECT 'a{number}', {columns} FROM files "
                     "WHERE agent_id = 'w'")
            )  # fmt: skip
    with engine.connect() as connection:
        connection.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))
    engine.dispose()
    yield url
    drop_postgres_database(url)


def plans(connection: Connection, statements: tuple[Select[Any], ...]) -> str:
    """The plans PostgreSQL makes for the statements, for agent w and one row."""
    found = []
    for statement in statements:
        compiled = statement.compile(dialect=connection.dialect)
        params = {name: {"agent_id": "w", "limit": 1}[name] for name in compiled.params}
        found += [row[0] for row in connection.exec_driver_sql(f"EXPLAIN {compiled}", params)]
    return "\n".join(found)


@pytest.mark.parametrize("probes", [(_LAGGING_FILES, _LAGGING_LOGS), _BEHIND], ids=["a search's", "the pass's"])
def test_the_backlog_probes_read_the_partial_indexes_of_an_analysed_table(
    analysed: str, probes: tuple[Select[Any], ...]
) -> None:
    engine = make_engine(analysed)
    try:
        with engine.begin() as connection:
            assert "Seq Scan on files" in plans(connection, probes)  # what the planner picks by itself
            with SqlSearchReads(connection, default_analyzer())._backlog_plans():
                planned = plans(connection, probes)
            assert "Seq Scan on files" not in planned and "ix_files_unindexed" in planned, planned
            assert "Seq Scan on files" in plans(connection, probes)  # and only for the probes
    finally:
        engine.dispose()
