"""The background index pass in real server processes: two replicas on one PostgreSQL database, each passing every
0.2 s (SCRATCHPAD_INDEX_EVERY), catch up the search index's backlog that writes left, with no search: an agent
whose catch-up another holds (its advisory lock) is left alone meanwhile, and once it is free both agents' backlogs
are gone, with `db check` holding throughout."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_adapters.sql.schema.tables import FILES_PENDING, LOGS_PENDING
from scratchpad_adapters.sql.search.reads import CLAIM_KEY
from scratchpad_core.limits import Limits
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.deploy.conftest import json_lines
from tests.servers import running

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

A, B = "held-agent", "free-agent"


@pytest.fixture
def database() -> Iterator[str]:
    url = create_postgres_database("scratchpad_index_pass")
    yield url
    drop_postgres_database(url)


def backlog(url: str) -> dict[str, int]:
    """Each agent's files and logs in the backlog."""
    engine = make_engine(url)
    try:
        with engine.connect() as c:
            found: dict[str, int] = {}
            for table, where in (("files", FILES_PENDING), ("logs", LOGS_PENDING)):
                query = text(f"SELECT agent_id, count(*) FROM {table} WHERE {where.text} GROUP BY agent_id")
                for agent, count in c.execute(query):
                    found[agent] = found.get(agent, 0) + count
        assert check(engine, Limits()).ok
        return found
    finally:
        engine.dispose()


def test_two_replicas_catch_the_backlog_up_without_a_search(database: str, tmp_path: Path) -> None:
    with open_store(database) as store:
        for agent in (A, B):
            for i in range(120):  # more than two of a pass's batches
                store.write_file(agent, f"notes/{i}.md", f"deploy {i} of {agent}\n")
            store.append_log(agent, "run.log", f"deploy of {agent}")
    assert backlog(database) == {A: 121, B: 121}
    holder = make_engine(database)
    env = {"SCRATCHPAD_DATABASE_URL": database, "SCRATCHPAD_AUTH": "none", "SCRATCHPAD_INDEX_EVERY": "0.2"}
    try:
        with holder.connect() as held, held.begin() as claim:
            taken = held.execute(text(f"SELECT pg_try_advisory_xact_lock({CLAIM_KEY}, hashtext(:a))"), {"a": A})
            assert taken.scalar() is True
            with running(tmp_path, {"one": env, "two": env}) as servers:
                deadline = time.monotonic() + 60
                while backlog(database) != {A: 121} and time.monotonic() < deadline:
                    time.sleep(0.3)
                assert backlog(database) == {A: 121}  # B's caught up, A's left to whoever holds it
                claim.rollback()  # the other catch-up ends
                while backlog(database) and time.monotonic() < deadline:
                    time.sleep(0.3)
                assert backlog(database) == {}
                events = [line for server in servers.values() for line in json_lines(server)]
                assert [e for e in events if e.get("event") == "index_pass_failed"] == []
    finally:
        holder.dispose()
    with open_store(database) as store:
        assert store.search_files(A, "deploy 7").matches[0].path == "notes/7.md"
